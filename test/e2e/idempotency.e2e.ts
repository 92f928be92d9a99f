import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { XchainClient } from '@xchain/client';
import { SERVICES, type Managed, freePort, startBuiltService, testRedisAdmin, until } from '@xchain/stack';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { apiErrorView, expectApiError, gatewayClient } from '../support/http';
import { EVM_REFUND, EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';

jest.setTimeout(180_000);

type QuoteBody = Parameters<XchainClient['getQuote']>[0];

/**
 * Idempotency-Key through the gateway (docs/integrators.md, Idempotency): a retry gets the first
 * answer, on either of two gateway replicas sharing Redis; another body with the key, or a
 * duplicate while the first still runs, gets 409; and nothing runs twice (one stored quote).
 */
describe('Idempotency-Key on GetQuote and SubmitGaslessOrder', () => {
  let e2e: E2eStack;
  let api: XchainClient;
  /** A second gateway replica on the same NATS and Redis, as behind a load balancer. */
  let gateway2: Managed;
  let api2: XchainClient;
  let redis: Redis;
  let db: Client;
  const body: QuoteBody = { ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND } as QuoteBody;
  const otherBody: QuoteBody = { ...body, amount: String(BigInt(body.amount) * 2n) } as QuoteBody;
  const quoteCount = async () => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM quotes')).rows[0]!.n);
  const quoteWith = (client: XchainClient, key: string, b: QuoteBody = body) => client.call('GetQuote', b, { idempotencyKey: key });
  const hashOf = (data: unknown) => (data as { cross_chain: { quote_hash: string } }).cross_chain.quote_hash;

  beforeAll(async () => {
    e2e = await startE2eStack(
      {
        PRICE_POLL_MS: '600000',
        PRICE_MAX_AGE_SECS: '7200',
        // The held request below waits for the stopped quote-engine within this deadline.
        NATS_REQUEST_TIMEOUT_MS: '20000',
        RELAY_POLL_MS: '200',
      },
      { devnet: { chains: ['ethereum', 'base'] } },
    );
    api = gatewayClient(e2e.gatewayUrl);
    const port = await freePort();
    gateway2 = await startBuiltService({
      spec: SERVICES.find((s) => s.name === 'gateway')!,
      port,
      env: e2e.stack.envFor('gateway'),
      logFile: join(e2e.logDir, 'gateway-2.log'),
    });
    api2 = gatewayClient(`http://127.0.0.1:${port}`);
    const admin = testRedisAdmin();
    redis = new Redis({ host: '127.0.0.1', port: admin.port, username: admin.login.user, password: admin.login.password });
    db = new Client({ connectionString: e2e.databaseUrl('quote_engine') });
    await db.connect();
  }, 240_000);

  afterAll(async () => {
    await db?.end();
    redis?.disconnect();
    await gateway2?.stop();
    await e2e?.stop();
  });

  it('answers a retry with the first answer, byte for byte, and stores one quote', async () => {
    const key = randomUUID();
    const before = await quoteCount();
    const first = await quoteWith(api, key);
    const again = await quoteWith(api, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.status).toBe(200);
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body));
    expect(hashOf(again.data)).toBe(hashOf(first.data));
    expect(await quoteCount()).toBe(before + 1);
    // Without a key every call is a new quote.
    expect(hashOf(await api.getQuote(body))).not.toBe(hashOf(first.data));
  });

  it('refuses the key with another body (409 IDEMPOTENCY_KEY_REUSED), and a malformed key (400)', async () => {
    const key = randomUUID();
    await quoteWith(api, key);
    const before = await quoteCount();
    await expectApiError(quoteWith(api, key, otherBody), { http: 409, reason: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await quoteCount()).toBe(before);
    for (const bad of ['x'.repeat(256), '']) {
      await expectApiError(quoteWith(api, bad), { http: 400, reason: 'INVALID_IDEMPOTENCY_KEY', fields: ['Idempotency-Key'] });
    }
  });

  it('keeps keys apart per caller: another client IP with the same key runs its own request', async () => {
    const key = randomUUID();
    const mine = await quoteWith(api, key);
    const other = new XchainClient({ baseUrl: e2e.gatewayUrl, timeoutMs: 30_000, localAddress: '127.0.0.2' });
    const theirs = await quoteWith(other, key, otherBody);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(hashOf(theirs.data)).not.toBe(hashOf(mine.data));
  });

  it('shares keys between gateway replicas', async () => {
    const key = randomUUID();
    const first = await quoteWith(api, key);
    const viaOther = await quoteWith(api2, key);
    expect(viaOther.headers.get('idempotent-replayed')).toBe('true');
    expect(hashOf(viaOther.data)).toBe(hashOf(first.data));
    await expectApiError(quoteWith(api2, key, otherBody), { http: 409, reason: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('tells a duplicate that arrives while the first request runs to retry (409 with Retry-After), then replays the answer', async () => {
    const key = randomUUID();
    const quoteEngine = e2e.stack.services.get('quote-engine')!.child;
    // The key's entry in Redis, whatever the caller scope in the middle of its name.
    const entry = `${e2e.stack.env['RATE_LIMIT_PREFIX']}:idem:*:${createHash('sha256').update(key).digest('hex')}`;
    const before = await quoteCount();
    // The quote-engine stopped: the first request is claimed and then waits for its answer.
    quoteEngine.kill('SIGSTOP');
    let first: Promise<Awaited<ReturnType<typeof quoteWith>>>;
    try {
      first = quoteWith(api, key);
      await until('the first request claimed its key', async () => ((await redis.keys(entry)).length > 0 ? true : undefined), {
        timeoutMs: 10_000,
      });
      for (const client of [api, api2]) {
        const err = await quoteWith(client, key).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(apiErrorView(err)).toMatchObject({ http: 409, reason: 'IDEMPOTENCY_REQUEST_IN_PROGRESS' });
        expect((err as { headers: Headers }).headers.get('retry-after')).toBe('1');
      }
    } finally {
      quoteEngine.kill('SIGCONT');
    }
    const answered = await first;
    expect(answered.status).toBe(200);
    const replay = await quoteWith(api, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(hashOf(replay.data)).toBe(hashOf(answered.data));
    expect(await quoteCount()).toBe(before + 1);
  });

  it('fails open when Redis does not answer: a request with a key runs, every time, counted', async () => {
    // A third replica whose Redis is a closed port: its rate limits and idempotency keys have no store.
    const port = await freePort();
    const deaf = await startBuiltService({
      spec: SERVICES.find((s) => s.name === 'gateway')!,
      port,
      env: { ...e2e.stack.envFor('gateway'), REDIS_URL: `redis://127.0.0.1:${await freePort()}` },
      logFile: join(e2e.logDir, 'gateway-no-redis.log'),
    });
    try {
      const client = gatewayClient(`http://127.0.0.1:${port}`);
      const key = randomUUID();
      const answers = [await quoteWith(client, key), await quoteWith(client, key)];
      for (const a of answers) {
        expect(a.status).toBe(200);
        expect(a.headers.get('content-type')).toMatch(/^application\/json/);
        expect(a.headers.get('idempotent-replayed')).toBeNull();
      }
      expect(hashOf(answers[1]!.data)).not.toBe(hashOf(answers[0]!.data));
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
      expect(metrics).toMatch(/^idempotency_requests_total\{outcome="fail_open"\} 2$/m);
    } finally {
      await deaf.stop();
    }
  });

  it('answers a retried gasless submission with the first answer', async () => {
    const g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    const user = g.newUser();
    await g.mint('base', LOCAL_TOKENS.base.USDC, user.address, 50_000_000n);
    const q = await g.gaslessQuote('base', LOCAL_TOKENS.base.USDC, user.address, '40000000');
    const order = await g.evmBody(user, q, true);
    const key = randomUUID();
    const submit = (client: XchainClient) =>
      client.call('SubmitGaslessOrder', order as Parameters<XchainClient['submitGaslessOrder']>[0], { idempotencyKey: key });
    const first = await submit(api);
    expect(first.status).toBe(200);
    const again = await submit(api2);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body));
  });
});
