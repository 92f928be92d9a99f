import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListPriceFeedsRpc, PriceSchema, type Price } from '@xchain/contracts';
import { type Managed, freePort, newBus, startNats, until } from '@xchain/stack';
import { busMetrics, connectNats, type NatsConnection, type RpcServer } from '@xchain/messaging';
import { repoRoot } from './config-path';
import { drawsPerKey } from './random';
import { FilePriceSource, loadPricesFile } from './sources/file-source';
import type { Feed } from './sources/source';
import { PRICE_READER, type RunningOracle, bootOracle, openPrices, serveFeeds } from './testing';

jest.setTimeout(30_000);

const FEEDS: Feed[] = [
  { price_id: 'ethereum', symbol: 'ETH' },
  { price_id: 'usd-coin', symbol: 'USDC' },
  { price_id: 'bonk', symbol: 'BONK' },
  { price_id: 'not-in-file', symbol: 'NIF' },
];

/** The file source end to end: feed list over NATS, walk, validated publication into the KV bucket. */
/** NATS runs with authorization, as everywhere (D14): the oracle as itself, the suite as a price reader. */
const bus = newBus({ 'price-reader': PRICE_READER });

/** ListPriceFeeds calls this process made that ended in an error, read from its bus metrics. */
async function unansweredFeedCalls(): Promise<number> {
  const { values } = await busMetrics().clientCalls.get();
  return values
    .filter(
      (v) =>
        v.metricName === 'nats_client_request_duration_seconds_count' &&
        v.labels['subject'] === ListPriceFeedsRpc.subject &&
        v.labels['outcome'] !== 'ok',
    )
    .reduce((n, v) => n + v.value, 0);
}

describe('price oracle publishing into a real NATS JetStream KV bucket', () => {
  let dir: string;
  let nats: Managed;
  let nc: NatsConnection;
  let oracle: RunningOracle;
  let feeds: RpcServer | undefined;
  let natsUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'oracle-nats-'));
    const [port, monitor] = [await freePort(), await freePort()];
    nats = await startNats(dir, port, monitor, join(dir, 'nats.log'), bus.users);
    natsUrl = `nats://127.0.0.1:${port}`;
    nc = await connectNats({ url: natsUrl, name: 'price-reader', connectTimeoutMs: 5000, ...bus.credentials('price-reader') });
  });

  afterAll(async () => {
    await oracle?.close();
    await feeds?.close();
    await nc?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('waits for the quote-engine without crashing, unready and saying why', async () => {
    oracle = await bootOracle({
      NATS_URL: natsUrl,
      ...bus.envFor('price-oracle'),
      PRICE_SOURCES: 'file',
      PRICE_WALK_SEED: '7',
      PRICE_POLL_MS: '200',
    });
    // Several ListPriceFeeds attempts answered "no responders" (the bus metrics of this process,
    // where the oracle runs), not a fixed wait: only then is "still unready, still alive" telling.
    await until('three unanswered ListPriceFeeds calls', async () => ((await unansweredFeedCalls()) >= 3 ? true : undefined), {
      timeoutMs: 10_000,
    });
    const ready = await oracle.readiness();
    expect(ready.status).toBe(503);
    expect(ready.body.checks['nats']).toEqual({ ok: true });
    expect(ready.body.checks['price_source:file']).toEqual({ ok: false, detail: expect.stringMatching(/^file: not polled yet/) });
    // open() only binds; status() asks the server, which has no such stream yet.
    await expect(openPrices(nc).then((kv) => kv.status())).rejects.toThrow();
  });

  it('creates the bucket and publishes every priced feed once the feed list arrives', async () => {
    const startedSecs = Math.floor(Date.now() / 1000);
    feeds = serveFeeds(nc, FEEDS);
    const kv = await until(
      'bucket',
      async () => {
        const bucket = await openPrices(nc);
        await bucket.status();
        return bucket;
      },
      { timeoutMs: 10_000 },
    );
    const entries = await until(
      'three prices',
      async () => {
        const got = await Promise.all(['ethereum', 'usd-coin', 'bonk'].map((k) => kv.get(k)));
        return got.every((e) => e && e.operation === 'PUT') ? got : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect((await kv.status()).history).toBe(1);
    expect(await kv.get('not-in-file')).toBeNull();

    // Seeded: each published value is one step of the walk this seed replays.
    const replay = new FilePriceSource(loadPricesFile(join(repoRoot()!, 'config/prices.json')), drawsPerKey(7));
    const walk = new Map<string, Set<string>>();
    for (let i = 0; i < 200; i++) {
      for (const p of await replay.fetch(FEEDS, 0)) walk.set(p.price_id, (walk.get(p.price_id) ?? new Set()).add(p.price));
    }
    // Stamped at publication: between this test's start and now (whole seconds, no speed assumed).
    const now = Math.floor(Date.now() / 1000);
    for (const e of entries) {
      const price: Price = PriceSchema.parse(e!.json());
      expect(price.source).toBe('file');
      expect(price.publish_time).toBeGreaterThanOrEqual(startedSecs - 1);
      expect(price.publish_time).toBeLessThanOrEqual(now + 1);
      expect(walk.get(price.price_id)!.has(price.price)).toBe(true);
    }
    expect(PriceSchema.parse(entries[0]!.json())).toMatchObject({ price_id: 'ethereum', expo: -8 });
  });

  it('keeps prices moving, one latest value per key', async () => {
    const kv = await openPrices(nc);
    const first = (await kv.get('ethereum'))!.revision;
    const later = await until(
      'a newer revision',
      async () => {
        const e = await kv.get('ethereum');
        return e && e.revision > first + 3 ? e : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(later.revision).toBeGreaterThan(first);
    const history: number[] = [];
    for await (const e of await kv.history({ key: 'ethereum' })) history.push(e.revision);
    expect(history).toHaveLength(1);
  });

  it('is ready once its source gives fresh prices', async () => {
    const ready = await oracle.readiness();
    expect(ready.status).toBe(200);
    expect(ready.body.checks['price_source:file']).toEqual({
      ok: true,
      detail: expect.stringMatching(/^file: last fresh value \d+s ago$/),
    });
  });
});
