import { randomUUID } from 'node:crypto';
import { DEFAULT_REDIS_PREFIXES, newRedisLogin, provisionRedisUsers, redisServiceRules, testRedisAdmin, untilHolds } from '@xchain/stack';
import { Redis } from 'ioredis';
import { IdempotencyStore, type IdempotencyStoreOptions, type StoredAnswer } from './idempotency-store';
import { fingerprintOf } from './idempotent-route';

const redisPort = Number(process.env.TEST_REDIS_PORT);
/** The gateway's own Redis user (D17): the store runs with exactly the rights the gateway gets. */
const gatewayLogin = newRedisLogin(`int_gateway_idem_${randomUUID().slice(0, 8)}`);
jest.setTimeout(30_000);

const FP_A = fingerprintOf('GetQuote', { amount_in: '1000000', src_chain: 'base' });
const FP_B = fingerprintOf('GetQuote', { amount_in: '2000000', src_chain: 'base' });
/** Body bytes that are not valid UTF-8 survive too: a replay is the bytes, not a re-encoding. */
const ANSWER: StoredAnswer = {
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: Buffer.concat([Buffer.from('{"quote_hash":"0xab","note":"\n"}'), Buffer.from([0xff, 0x00])]),
};

describe('IdempotencyStore against a real Redis', () => {
  let redis: Redis;
  let admin: Redis;

  const store = (o: Partial<IdempotencyStoreOptions> = {}) =>
    new IdempotencyStore(redis, { keyPrefix: `rl-test-${randomUUID()}:idem`, leaseMs: 10_000, retainMs: 60_000, ...o });

  beforeAll(async () => {
    if (!redisPort) throw new Error('TEST_REDIS_PORT is not set: run through test-servers');
    const root = testRedisAdmin();
    await provisionRedisUsers(redisPort, root.login, [
      { login: gatewayLogin, rules: redisServiceRules('gateway', { ...DEFAULT_REDIS_PREFIXES, rateLimit: 'rl-test-*' }) },
    ]);
    redis = new Redis({ host: '127.0.0.1', port: redisPort, username: gatewayLogin.user, password: gatewayLogin.password });
    admin = new Redis({ host: '127.0.0.1', port: redisPort, username: root.login.user, password: root.login.password });
  });

  afterAll(async () => {
    await Promise.all([redis.quit(), admin.quit()]);
  });

  it('lets one of many racing requests claim a key; the others are told it is in progress', async () => {
    const s = store();
    const claims = await Promise.all(Array.from({ length: 20 }, () => s.claim('ip:203.0.113.1:k1', FP_A)));
    expect(claims.filter((c) => c.kind === 'claimed')).toHaveLength(1);
    const waiting = claims.filter((c) => c.kind === 'in_progress');
    expect(waiting).toHaveLength(19);
    for (const c of waiting) expect(c.leaseLeftMs).toBeGreaterThan(0);
  });

  it('replays the stored answer byte for byte to the same fingerprint, and refuses another fingerprint', async () => {
    const s = store({ retainMs: 60_000 });
    const first = await s.claim('partner:p1:k2', FP_A);
    if (first.kind !== 'claimed') throw new Error(`expected a claim, got ${first.kind}`);
    expect(await s.claim('partner:p1:k2', FP_B)).toEqual({ kind: 'mismatch' });
    expect(await s.complete('partner:p1:k2', first.token, ANSWER)).toBe(true);

    const again = await s.claim('partner:p1:k2', FP_A);
    expect(again).toEqual({ kind: 'replay', answer: ANSWER });
    expect(await s.claim('partner:p1:k2', FP_B)).toEqual({ kind: 'mismatch' });
    // Another scope is another key: nothing of p1's answer reaches p2.
    expect((await s.claim('partner:p2:k2', FP_A)).kind).toBe('claimed');
  });

  it('keeps an answer for the retention period, and a claim for its lease only', async () => {
    const opts = { keyPrefix: `rl-test-${randomUUID()}:idem`, leaseMs: 10_000, retainMs: 86_400_000 };
    const s = store(opts);
    const c = await s.claim('ip:203.0.113.2:k3', FP_A);
    if (c.kind !== 'claimed') throw new Error('expected a claim');
    const leaseTtl = await admin.pttl(`${opts.keyPrefix}:ip:203.0.113.2:k3`);
    expect(leaseTtl).toBeGreaterThan(9000);
    expect(leaseTtl).toBeLessThanOrEqual(10_000);
    await s.complete('ip:203.0.113.2:k3', c.token, ANSWER);
    const kept = await admin.pttl(`${opts.keyPrefix}:ip:203.0.113.2:k3`);
    expect(kept).toBeGreaterThan(86_400_000 - 5000);
  });

  it('frees a key whose claimant died once the lease runs out, and drops that claimant’s late answer', async () => {
    const s = store({ leaseMs: 300 });
    const dead = await s.claim('ip:203.0.113.3:k4', FP_A);
    if (dead.kind !== 'claimed') throw new Error('expected a claim');
    expect((await s.claim('ip:203.0.113.3:k4', FP_A)).kind).toBe('in_progress');
    // Poll for the positive signal: the key can be claimed again.
    const next = await untilHolds(
      'the lease to run out',
      () => s.claim('ip:203.0.113.3:k4', FP_A),
      (n) => n.kind !== 'in_progress',
      { timeoutMs: 5000, everyMs: 50 },
    );
    if (next.kind !== 'claimed') throw new Error(`the lease never ran out: ${next.kind}`);
    // The dead request's answer arrives late: it must not overwrite the new claim's.
    expect(await s.complete('ip:203.0.113.3:k4', dead.token, ANSWER)).toBe(false);
    expect(await s.release('ip:203.0.113.3:k4', dead.token)).toBe(false);
    expect((await s.claim('ip:203.0.113.3:k4', FP_A)).kind).toBe('in_progress');
  });

  it('gives a key up on release, so the next request with it runs', async () => {
    const s = store();
    const c = await s.claim('ip:203.0.113.4:k5', FP_A);
    if (c.kind !== 'claimed') throw new Error('expected a claim');
    expect(await s.release('ip:203.0.113.4:k5', c.token)).toBe(true);
    expect((await s.claim('ip:203.0.113.4:k5', FP_B)).kind).toBe('claimed');
  });
});
