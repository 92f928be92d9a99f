import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KV, Kvm } from '@nats-io/kv';
import { PRICES_BUCKET, PriceSchema } from '@xchain/contracts';
import { type Managed, freePort, newBus, startNats, until } from '@xchain/stack';
import { connectNats, type NatsConnection, type RpcServer } from '@xchain/messaging';
import { Clock } from '@xchain/service-kit';
import { PRICE_READER, type RunningOracle, bootOracle, serveFeeds } from '../testing';
import type { Feed } from './source';

jest.setTimeout(30_000);

const ETH = 'ff61491a931112ddf1bd8147cd1b641375f79f5825126d665480874634fd0ace';
const USDC = 'eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a';
const BTC = 'e62df6c8b4a85fe1a67db44dc12de5db330f7ac66b72dc658afedf0f4a415b43';
const FIXTURE = readFileSync(join(__dirname, '../fixtures/hermes-latest-eth-usdc.json'), 'utf8');
const RECORDED_AT = JSON.parse(FIXTURE).parsed[0].price.publish_time as number;

const FEEDS: Feed[] = [
  { price_id: 'ethereum', symbol: 'ETH', pyth_feed_id: `0x${ETH}` },
  { price_id: 'usd-coin', symbol: 'USDC', pyth_feed_id: USDC },
  // Not in the recording: Hermes leaves it out (ignore_invalid_price_ids); the file source covers it.
  { price_id: 'bitcoin', symbol: 'BTC', pyth_feed_id: `0x${BTC}` },
];

type Mode = { kind: 'replay'; body: string } | { kind: 'status'; code: number } | { kind: 'hang' };

/** Pyth through a loopback server replaying Hermes' real answer format, into a real NATS KV bucket. */
/** NATS runs with authorization, as everywhere (D14): the oracle as itself, the suite as a price reader. */
const bus = newBus({ 'price-reader': PRICE_READER });

describe('Pyth Hermes source against a replayed Hermes', () => {
  let dir: string;
  let nats: Managed;
  let natsUrl: string;
  let nc: NatsConnection;
  let feeds: RpcServer;
  let hermes: Server;
  let hermesUrl: string;
  let mode: Mode = { kind: 'replay', body: FIXTURE };
  const seen: { url: URL; headers: IncomingHttpHeaders }[] = [];
  let oracle: RunningOracle | undefined;
  let kv: KV;
  // The oracle's clock runs from two seconds after the recording, so its values are fresh.
  const offset = Date.now() - (RECORDED_AT * 1000 + 2000);
  const clock = new (class extends Clock {
    nowMs(): number {
      return Date.now() - offset;
    }
  })();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'oracle-pyth-'));
    const [port, monitor] = [await freePort(), await freePort()];
    nats = await startNats(dir, port, monitor, join(dir, 'nats.log'), bus.users);
    natsUrl = `nats://127.0.0.1:${port}`;
    nc = await connectNats({ url: natsUrl, name: 'price-reader', connectTimeoutMs: 5000, ...bus.credentials('price-reader') });
    feeds = serveFeeds(nc, FEEDS);
    hermes = createServer((req, res) => {
      seen.push({ url: new URL(req.url ?? '/', 'http://x'), headers: req.headers });
      if (mode.kind === 'hang') return; // never answers: the client's timeout must fire
      if (mode.kind === 'status') return void res.writeHead(mode.code, { 'content-type': 'text/plain' }).end('upstream error');
      res.writeHead(200, { 'content-type': 'application/json' }).end(mode.body);
    });
    await new Promise<void>((r) => hermes.listen(0, '127.0.0.1', r));
    hermesUrl = `http://127.0.0.1:${(hermes.address() as AddressInfo).port}/hermes`;
    kv = await new Kvm(nc).create(PRICES_BUCKET, { history: 1 });
  });

  afterAll(async () => {
    await oracle?.close();
    hermes?.closeAllConnections();
    await new Promise((r) => hermes?.close(r));
    await feeds?.close();
    await nc?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (sources: string) => ({
    NATS_URL: natsUrl,
    ...bus.envFor('price-oracle'),
    PRICE_SOURCES: sources,
    PYTH_HERMES_URL: hermesUrl,
    PYTH_API_KEY: 'test-key',
    PYTH_TIMEOUT_MS: '300',
    PRICE_POLL_MS: '150',
    PRICE_SOURCE_MAX_SILENCE_MS: '1000',
    PRICE_WALK_SEED: '1',
  });
  const check = async (name: string) => (await oracle!.readiness()).body.checks[name];
  const entry = async (key: string) => {
    const e = await kv.get(key);
    return e && e.operation === 'PUT' ? { revision: e.revision, price: PriceSchema.parse(e.json()) } : undefined;
  };

  describe('as the only source', () => {
    afterAll(async () => {
      await oracle?.close();
      oracle = undefined;
    });

    it('publishes the recorded values exactly, mapping feed ids back to price ids', async () => {
      oracle = await bootOracle(env('pyth'), { clock });
      const [eth, usdc] = await until(
        'two prices',
        async () => {
          const got = await Promise.all([entry('ethereum'), entry('usd-coin')]);
          return got.every(Boolean) ? got : undefined;
        },
        { timeoutMs: 10_000 },
      );
      expect(eth!.price).toEqual({
        price_id: 'ethereum',
        price: '351227450000',
        expo: -8,
        conf: '171823456',
        publish_time: RECORDED_AT,
        source: 'pyth',
      });
      expect(usdc!.price).toEqual({
        price_id: 'usd-coin',
        price: '99987654',
        expo: -8,
        conf: '71235',
        publish_time: RECORDED_AT,
        source: 'pyth',
      });
      expect(await kv.get('bitcoin')).toBeNull();
    });

    it('asks Hermes for every feed in one request, under the base path, with the API key', () => {
      const { url, headers } = seen.at(-1)!;
      expect(url.pathname).toBe('/hermes/v2/updates/price/latest');
      expect(url.searchParams.getAll('ids[]')).toEqual([`0x${ETH}`, `0x${USDC}`, `0x${BTC}`]);
      expect(url.searchParams.get('parsed')).toBe('true');
      expect(url.searchParams.get('ignore_invalid_price_ids')).toBe('true');
      expect(headers['authorization']).toBe('Bearer test-key');
    });

    it('is ready, and does not republish a value Hermes keeps answering unchanged', async () => {
      expect((await oracle!.readiness()).status).toBe(200);
      const before = (await entry('ethereum'))!.revision;
      const polls = seen.length;
      await until('three more polls', async () => (seen.length >= polls + 3 ? true : undefined), { timeoutMs: 10_000 });
      expect((await entry('ethereum'))!.revision).toBe(before);
    });

    it('reports a failing Hermes in readiness, naming the source, and freezes nothing', async () => {
      const before = await entry('ethereum');
      mode = { kind: 'status', code: 500 };
      const failing = await until(
        'readiness fails',
        async () => {
          const r = await oracle!.readiness();
          return r.status === 503 ? r.body : undefined;
        },
        { timeoutMs: 10_000 },
      );
      expect(failing.checks['price_source:pyth']).toEqual({
        ok: false,
        detail: 'pyth: failing: Hermes answered HTTP 500; last fresh value 0s ago',
      });
      mode = { kind: 'hang' };
      await until(
        'timeout reported',
        async () => ((await check('price_source:pyth'))?.detail?.includes('did not answer within 300 ms') ? true : undefined),
        { timeoutMs: 10_000 },
      );
      // The last value stays with its own publish time: consumers see its age grow.
      expect(await entry('ethereum')).toEqual(before);
    });

    it('publishes again, and is ready again, when Hermes recovers with newer values', async () => {
      const body = JSON.parse(FIXTURE);
      body.parsed[0].price = { ...body.parsed[0].price, price: '351300000000', publish_time: RECORDED_AT + 3 };
      mode = { kind: 'replay', body: JSON.stringify(body) };
      const eth = await until(
        'new value',
        async () => {
          const e = await entry('ethereum');
          return e?.price.publish_time === RECORDED_AT + 3 ? e : undefined;
        },
        { timeoutMs: 10_000 },
      );
      expect(eth.price.price).toBe('351300000000');
      await until('ready again', async () => ((await oracle!.readiness()).status === 200 ? true : undefined), { timeoutMs: 10_000 });
    });
  });

  describe('ahead of the file source', () => {
    it('takes Pyth where it has a fresh value and the file elsewhere; falls back when Hermes fails, staying ready', async () => {
      mode = { kind: 'replay', body: FIXTURE };
      oracle = await bootOracle(env('pyth,file'), { clock });
      const btc = await until('file price for bitcoin', () => entry('bitcoin'), { timeoutMs: 10_000 });
      expect(btc.price.source).toBe('file');
      // The recorded ETH value is older than the one published before: it must not replace it.
      expect((await entry('ethereum'))!.price).toMatchObject({ source: 'pyth', publish_time: RECORDED_AT + 3 });

      mode = { kind: 'status', code: 502 };
      const eth = await until(
        'file takes over ethereum',
        async () => {
          const e = await entry('ethereum');
          return e?.price.source === 'file' ? e : undefined;
        },
        { timeoutMs: 10_000 },
      );
      expect(eth.price.publish_time).toBeGreaterThanOrEqual(RECORDED_AT + 3); // stamped "now" by the file source
      const ready = await oracle.readiness();
      expect(ready.status).toBe(200);
      expect(ready.body.checks['price_source:pyth']).toEqual({
        ok: true,
        detail: expect.stringMatching(/^pyth: failing: Hermes answered HTTP 502.*\(prices still come from file\)$/),
      });
      expect(ready.body.checks['price_source:file']).toMatchObject({ ok: true });
    });
  });
});
