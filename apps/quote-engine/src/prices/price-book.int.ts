import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KV, Kvm } from '@nats-io/kv';
import { PRICES_BUCKET, RpcError, type Price } from '@xchain/contracts';
import { connectNats, type NatsConnection } from '@xchain/messaging';
import { HealthRegistry } from '@xchain/service-kit';
import { type Managed, freePort, newBus, startNats, until, type UntilOptions } from '@xchain/stack';
import type { Logger } from '@xchain/telemetry';
import { PriceBook } from './price-book';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
const MAX_AGE_SECS = 60;
const now = () => Math.floor(Date.now() / 1000);
const price = (price_id: string, publish_time: number): Price => ({
  price_id,
  price: '100000000',
  expo: -8,
  conf: '0',
  publish_time,
  source: 'file',
});

/** A logger that records only warnings, each prefixed with `name: `. */
function silentExcept(lines: { level: string; msg: string }[], name: string): Logger {
  return {
    info: () => undefined,
    warn: (_o: unknown, msg: string) => void lines.push({ level: 'warn', msg: `${name}: ${msg}` }),
    error: () => undefined,
  } as unknown as Logger;
}

/** The connection, counting in `tries[name]` the JetStream requests that name the prices bucket's stream: one per attempt to watch it. */
function counting(nc: NatsConnection, tries: Record<string, number>, name: string): NatsConnection {
  return new Proxy(nc, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (prop === 'request') {
        return (subject: string, ...rest: unknown[]) => {
          if (subject.includes(`.KV_${PRICES_BUCKET}`)) tries[name] = (tries[name] ?? 0) + 1;
          return (value as (...a: unknown[]) => unknown).call(target, subject, ...rest);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const POLL: UntilOptions = { timeoutMs: 10_000, everyMs: 5, failOnError: true };

/**
 * Readiness of the price book against a real JetStream KV bucket (written as the price-oracle,
 * read as the quote-engine, with the bus's real permissions): ready means quoting will find prices.
 */
// Jest's default 5 s per test is shorter than this suite's own poll deadlines: they, not a stopwatch,
// should decide when something did not happen.
jest.setTimeout(60_000);

describe('PriceBook readiness on NATS JetStream KV', () => {
  let dir: string;
  let nats: Managed;
  let oracle: NatsConnection;
  let engine: NatsConnection;
  let kv: KV;
  const books: PriceBook[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-price-book-'));
    const [port, monitor] = [await freePort(), await freePort()];
    const bus = newBus();
    nats = await startNats(dir, port, monitor, join(dir, 'nats.log'), bus.users);
    const url = `nats://127.0.0.1:${port}`;
    oracle = await connectNats({ url, name: 'price-book-test-oracle', connectTimeoutMs: 5000, ...bus.credentials('price-oracle') });
    engine = await connectNats({ url, name: 'price-book-test-engine', connectTimeoutMs: 5000, ...bus.credentials('quote-engine') });
  }, 60_000);

  afterAll(async () => {
    for (const b of books) b.onApplicationShutdown();
    await engine?.close();
    await oracle?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function start(): { book: PriceBook; health: HealthRegistry } {
    const health = new HealthRegistry('quote-engine');
    const book = new PriceBook(engine, silent, health, MAX_AGE_SECS, 5);
    books.push(book);
    book.onModuleInit();
    return { book, health };
  }
  const check = async (health: HealthRegistry) => (await health.readiness()).checks['prices']!;

  it('waits for a bucket the price-oracle has not made yet without a warning, and warns once it has waited past its grace', async () => {
    // Before any bucket exists, as at most starts: the quote-engine is up before the price-oracle.
    const lines: { level: string; msg: string }[] = [];
    const record = (level: string) => (a: unknown, b?: unknown) => void lines.push({ level, msg: String(typeof a === 'string' ? a : b) });
    const log = { info: record('info'), warn: record('warn'), error: record('error') } as unknown as Logger;
    const tries = { quiet: 0, impatient: 0 };
    const quiet = new PriceBook(counting(engine, tries, 'quiet'), log, new HealthRegistry('quote-engine'), MAX_AGE_SECS, 5);
    const impatient = new PriceBook(
      counting(engine, tries, 'impatient'),
      silentExcept(lines, 'impatient'),
      new HealthRegistry('quote-engine'),
      MAX_AGE_SECS,
      5,
      1_000,
    );
    books.push(quiet, impatient);
    quiet.onModuleInit();
    impatient.onModuleInit();
    // Retries come after 250, 500 and 1,000 ms: the fourth attempt is past the impatient one's grace.
    await until('four attempts of each book', async () => (tries.quiet >= 4 && tries.impatient >= 4 ? true : undefined), POLL);
    await until(
      'a warning from the impatient book',
      async () => (lines.some((l) => l.msg === 'impatient: price watch failed; retrying') ? true : undefined),
      POLL,
    );
    expect(quiet.health(now())).toEqual({ ok: false, detail: 'not watching the price bucket' });
    const mine = lines.filter((l) => !l.msg.startsWith('impatient: '));
    expect(mine).toEqual([{ level: 'info', msg: `no ${PRICES_BUCKET} bucket yet; waiting for the price-oracle to make it` }]);
  });

  it('is not ready while the bucket holds no price, and ready once the first one arrives', async () => {
    kv = await new Kvm(oracle).create(PRICES_BUCKET, { history: 1 });
    const { book, health } = start();
    // The watch opens (the bucket exists) but there is nothing to quote with yet.
    await until(
      'the watch to open',
      async () => ((await check(health)).detail === 'waiting for the first prices' ? true : undefined),
      POLL,
    );
    expect(await check(health)).toEqual({ ok: false, detail: 'waiting for the first prices' });
    expect((await health.readiness()).status).toBe('unavailable');

    await kv.put('ethereum', JSON.stringify(price('ethereum', now())));
    await until('ready', async () => ((await check(health)).ok ? true : undefined), POLL);
    expect(await check(health)).toEqual({ ok: true, detail: '1 prices, all fresh' });
    expect(book.fresh('ethereum', now()).price_id).toBe('ethereum');
  });

  it('after a restart, is not ready until every price the bucket holds is in, so its first quotes never meet STALE_PRICE', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `asset-${i.toString().padStart(3, '0')}`);
    await Promise.all(ids.map((id) => kv.put(id, JSON.stringify(price(id, now())))));

    const { book, health } = start();
    const notReady: string[] = [];
    await until(
      'ready',
      async () => {
        const c = await check(health);
        if (!c.ok) {
          notReady.push(c.detail ?? '');
          return undefined;
        }
        return true;
      },
      POLL,
    );
    // The first moment it says ready, every price is there: no request can meet STALE_PRICE.
    const missing = ids.filter((id) => {
      try {
        book.fresh(id, now());
        return false;
      } catch (err) {
        if (err instanceof RpcError) return true;
        throw err;
      }
    });
    expect(missing).toEqual([]);
    expect(notReady.length).toBeGreaterThan(0);
    expect(notReady.every((d) => d === 'waiting for the first prices' || d === 'not watching the price bucket')).toBe(true);
  });

  it('reports stale prices as degraded (still ready), naming them, and fresh again once they are updated', async () => {
    const { health } = start();
    await until('ready', async () => ((await check(health)).ok ? true : undefined), POLL);
    await kv.put('bitcoin', JSON.stringify(price('bitcoin', now() - MAX_AGE_SECS - 30)));
    await kv.put('solana', JSON.stringify(price('solana', now() - MAX_AGE_SECS - 1)));

    const degraded = await until(
      'degraded',
      async () => {
        const c = await check(health);
        return c.detail?.startsWith('degraded: 2 of') ? c : undefined;
      },
      POLL,
    );
    expect(degraded.ok).toBe(true);
    expect(degraded.detail).toMatch(/^degraded: 2 of \d+ prices older than 60 s \(bitcoin, solana\)$/);
    expect((await health.readiness()).status).toBe('ok');

    await kv.put('bitcoin', JSON.stringify(price('bitcoin', now())));
    await kv.put('solana', JSON.stringify(price('solana', now())));
    await until('fresh again', async () => ((await check(health)).detail?.endsWith('all fresh') ? true : undefined), POLL);
  });
});
