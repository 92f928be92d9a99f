import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { DEFAULT_REDIS_PREFIXES, freePort, newRedisLogin, provisionRedisUsers, redisServiceRules, testRedisAdmin } from '@xchain/stack';
import { Redis, type RedisOptions } from 'ioredis';
import { RateLimits, type LimitDecision, type RateLimitOptions } from './rate-limits';

const redisPort = Number(process.env.TEST_REDIS_PORT);
/** The gateway's own Redis user (D17): the limits run with exactly the rights the gateway gets, on the `rl-test-…` prefixes. */
const gatewayLogin = newRedisLogin(`int_gateway_${randomUUID().slice(0, 8)}`);
// Above the generous "does not hang" bounds below, so they, not Jest, report a hang.
jest.setTimeout(30_000);

/** Closes an ioredis client; waits (at most a second) until its connection is really gone. */
async function close(c: Redis): Promise<void> {
  if (c.status === 'end') return;
  const ended = new Promise<void>((resolve) => {
    c.once('end', () => resolve());
    setTimeout(resolve, 1000).unref();
  });
  if (c.status === 'ready') await c.quit().catch(() => c.disconnect());
  else c.disconnect();
  await ended;
}

describe('RateLimits against a real Redis', () => {
  const clients: Redis[] = [];
  let redis: Redis;
  /** The administrator, for what the test looks at (the gateway's user may not GET or list keys). */
  let admin: Redis;

  const client = (port: number, extra: RedisOptions = {}): Redis => {
    const c = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 1000, ...extra });
    c.on('error', () => undefined); // failures show up as degraded decisions
    clients.push(c);
    return c;
  };
  const options = (o: Partial<RateLimitOptions> = {}): RateLimitOptions => ({
    keyPrefix: `rl-test-${randomUUID()}`,
    keylessPointsPerMin: 10,
    partnerPointsPerMin: 10,
    redisTimeoutMs: 500,
    ...o,
  });
  const allowedOf = (ds: LimitDecision[]) => ds.filter((d) => d.allowed);
  const rejectedOf = (ds: LimitDecision[]) => ds.filter((d) => !d.allowed);

  beforeAll(async () => {
    if (!redisPort) throw new Error('TEST_REDIS_PORT is not set: run through test-servers');
    const root = testRedisAdmin();
    await provisionRedisUsers(redisPort, root.login, [
      { login: gatewayLogin, rules: redisServiceRules('gateway', { ...DEFAULT_REDIS_PREFIXES, rateLimit: 'rl-test-*' }) },
    ]);
    redis = client(redisPort, { username: gatewayLogin.user, password: gatewayLogin.password });
    admin = client(redisPort, { username: root.login.user, password: root.login.password });
    await Promise.all([redis.connect(), admin.connect()]);
  });

  afterAll(async () => {
    await Promise.all(clients.map(close));
  }, 10_000);

  it('lets exactly the budget through when 100 requests race for 10 points', async () => {
    const limits = new RateLimits(redis, options());
    const ip = '203.0.113.7';
    const ds = await Promise.all(Array.from({ length: 100 }, () => limits.consume({ kind: 'ip', ip }, 1)));

    const allowed = allowedOf(ds);
    const rejected = rejectedOf(ds);
    expect(allowed).toHaveLength(10);
    expect(rejected).toHaveLength(90);
    expect(allowed.map((d) => d.remaining).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const d of rejected) {
      expect(d.remaining).toBe(0);
      expect(d.retryAfterSecs).toBeGreaterThanOrEqual(1);
      expect(d.retryAfterSecs).toBeLessThanOrEqual(60);
    }
    for (const d of ds) {
      expect(d.limit).toBe(10);
      expect(d.degraded).toBe(false);
      expect(d.resetSecs).toBeGreaterThanOrEqual(d.allowed ? 0 : 1);
      expect(d.resetSecs).toBeLessThanOrEqual(60);
    }
  });

  it('sends the checks of one event-loop turn to Redis as one command, each with its own decision', async () => {
    const limits = new RateLimits(redis, options());
    // Every command ioredis writes goes through sendCommand (the script as EVALSHA, or EVAL after NOSCRIPT).
    const sent = jest.spyOn(redis, 'sendCommand');
    const scripts = () => sent.mock.calls.filter(([c]) => c.name === 'evalsha' || c.name === 'eval').length;
    try {
      const ds = await Promise.all([
        ...Array.from({ length: 30 }, () => limits.consume({ kind: 'ip', ip: '203.0.113.8' }, 1)),
        ...Array.from({ length: 5 }, () => limits.consume({ kind: 'ip', ip: '203.0.113.9' }, 1)),
      ]);
      expect(sent).toHaveBeenCalledTimes(scripts());
      expect(scripts()).toBeGreaterThanOrEqual(1);
      expect(scripts()).toBeLessThanOrEqual(2); // EVALSHA, and EVAL once if Redis did not know the script yet
      // Answers stay in order and per bucket: the first 10 of the busy IP pass, all 5 of the other.
      expect(ds.slice(0, 30).map((d) => d.allowed)).toEqual([...Array<boolean>(10).fill(true), ...Array<boolean>(20).fill(false)]);
      expect(ds.slice(30).every((d) => d.allowed && !d.degraded)).toBe(true);
      expect(ds.slice(0, 10).map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      // The next turn is one more command (the script is known by now: EVALSHA).
      const before = sent.mock.calls.length;
      await limits.consume({ kind: 'ip', ip: '203.0.113.9' }, 1);
      expect(sent.mock.calls.length - before).toBe(1);
      expect(sent.mock.calls.at(-1)![0].name).toBe('evalsha');
    } finally {
      sent.mockRestore();
    }
  });

  it('keeps counters under the names and expiry rate-limiter-flexible gives them, so replicas of either version share a budget', async () => {
    const opts = options();
    const limits = new RateLimits(redis, opts);
    // A window another replica started: 4 points already spent, 30 s left.
    await admin.set(`${opts.keyPrefix}:ip:198.51.100.77`, 4, 'EX', 30);
    const d = await limits.consume({ kind: 'ip', ip: '198.51.100.77' }, 2);
    expect(d).toMatchObject({ allowed: true, remaining: 4, degraded: false });
    expect(d.resetSecs).toBeGreaterThan(25);
    expect(d.resetSecs).toBeLessThanOrEqual(30);
    expect(await admin.get(`${opts.keyPrefix}:ip:198.51.100.77`)).toBe('6');
    // A counter that lost its expiry gets the window's back.
    await admin.set(`${opts.keyPrefix}:ip:198.51.100.78`, 1);
    const e = await limits.consume({ kind: 'ip', ip: '198.51.100.78' }, 1);
    expect(e).toMatchObject({ allowed: true, remaining: 8, resetSecs: 60 });
    const ttl = await admin.pttl(`${opts.keyPrefix}:ip:198.51.100.78`);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('charges the cost of a request against the budget', async () => {
    const limits = new RateLimits(redis, options());
    const bucket = { kind: 'ip', ip: '198.51.100.1' } as const;
    const ds: LimitDecision[] = [];
    for (let i = 0; i < 4; i++) ds.push(await limits.consume(bucket, 3));

    expect(ds.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(ds.slice(0, 3).map((d) => d.remaining)).toEqual([7, 4, 1]);
    expect(ds[3]!.retryAfterSecs).toBeGreaterThanOrEqual(1);
  });

  it('never allows a cost above the budget, without spending the budget on it', async () => {
    const limits = new RateLimits(redis, options());
    const bucket = { kind: 'ip', ip: '198.51.100.2' } as const;
    const huge = await limits.consume(bucket, 11);
    expect(huge).toMatchObject({ allowed: false, limit: 10, remaining: 0 });
    expect(huge.retryAfterSecs).toBeGreaterThanOrEqual(1);

    const next = await limits.consume(bucket, 10);
    expect(next).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('limits keys with different points_per_min independently, apart from IPs and partners', async () => {
    const opts = options();
    const limits = new RateLimits(redis, opts);
    const run = async (bucket: Parameters<RateLimits['consume']>[0], n: number) => {
      const ds: LimitDecision[] = [];
      for (let i = 0; i < n; i++) ds.push(await limits.consume(bucket, 1));
      return ds;
    };

    const small = await run({ kind: 'key', keyId: 'key-small', pointsPerMin: 5 }, 6);
    expect(small.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(small.every((d) => d.limit === 5)).toBe(true);

    // The small key being exhausted does not touch the large one.
    const large = await run({ kind: 'key', keyId: 'key-large', pointsPerMin: 20 }, 21);
    expect(allowedOf(large)).toHaveLength(20);
    expect(large[20]!.allowed).toBe(false);
    expect(large.every((d) => d.limit === 20)).toBe(true);

    // An IP spends its keyless budget; an API key whose id is that same string is untouched.
    const ip = '192.0.2.55';
    const ipDs = await run({ kind: 'ip', ip }, 11);
    expect(allowedOf(ipDs)).toHaveLength(10);
    expect(ipDs[10]!.allowed).toBe(false);
    const sameNameKey = await limits.consume({ kind: 'key', keyId: ip, pointsPerMin: 10 }, 1);
    expect(sameNameKey).toMatchObject({ allowed: true, remaining: 9, limit: 10 });
    const sameNamePartner = await limits.consume({ kind: 'partner', partnerId: ip }, 1);
    expect(sameNamePartner).toMatchObject({ allowed: true, remaining: 9, limit: 10 });

    // The counters live in Redis, one per bucket kind (and points value), each expiring with its window.
    const p = opts.keyPrefix;
    expect((await admin.keys(`${p}:*`)).sort()).toEqual(
      [`${p}:ip:${ip}`, `${p}:key:10:${ip}`, `${p}:key:20:key-large`, `${p}:key:5:key-small`, `${p}:partner:${ip}`].sort(),
    );
    const ttl = await admin.pttl(`${p}:key:5:key-small`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('shares one budget between two gateway replicas on the same Redis', async () => {
    const opts = options();
    const other = client(redisPort, { username: gatewayLogin.user, password: gatewayLogin.password });
    await other.connect();
    const a = new RateLimits(redis, opts);
    const b = new RateLimits(other, opts);
    const bucket = { kind: 'partner', partnerId: 'partner-1' } as const;

    const ds = await Promise.all([
      ...Array.from({ length: 6 }, () => a.consume(bucket, 1)),
      ...Array.from({ length: 6 }, () => b.consume(bucket, 1)),
    ]);
    expect(allowedOf(ds)).toHaveLength(10);
    expect(rejectedOf(ds)).toHaveLength(2);
    expect(
      allowedOf(ds)
        .map((d) => d.remaining)
        .sort((x, y) => x - y),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(ds.every((d) => !d.degraded)).toBe(true);
  });

  it('keeps limiting in memory, quickly, when Redis is unreachable', async () => {
    const closedPort = await freePort();
    // No reconnect loop: once the first connection attempt fails the client stays closed.
    const dead = client(closedPort, { enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 200, retryStrategy: () => null });
    const limits = new RateLimits(dead, options({ keylessPointsPerMin: 3 }));
    const bucket = { kind: 'ip', ip: '203.0.113.99' } as const;

    const ds: LimitDecision[] = [];
    for (let i = 0; i < 4; i++) {
      // Each answer must not wait on a connection that will never come (the client does not retry);
      // the bound is generous, against a hang, not a speed check.
      const started = Date.now();
      ds.push(await limits.consume(bucket, 1));
      expect(Date.now() - started).toBeLessThan(10_000);
    }
    expect(ds.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(ds.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(ds[3]!.retryAfterSecs).toBeGreaterThanOrEqual(1);
    expect(ds.every((d) => d.degraded)).toBe(true);
  });

  describe('when Redis accepts connections but never answers', () => {
    let silent: Server;
    let hung: Redis | undefined;
    const sockets = new Set<Socket>();

    beforeAll(async () => {
      silent = createServer((s) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    });

    afterAll(async () => {
      if (hung && hung.status !== 'end') {
        const ended = new Promise<void>((resolve) => hung!.once('end', () => resolve()));
        hung.disconnect();
        for (const s of sockets) s.destroy(); // the silent server would not acknowledge the client's goodbye
        await ended;
      }
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });

    it('answers from memory after redisTimeoutMs instead of hanging', async () => {
      const port = (silent.address() as { port: number }).port;
      // Commands are written (or queued) and simply never answered. No ready check: a ready check
      // failing at teardown leaves a 2 s ioredis disconnect timer behind.
      hung = client(port, { lazyConnect: false, enableReadyCheck: false, maxRetriesPerRequest: 20, connectTimeout: 10_000 });
      const limits = new RateLimits(hung, options({ keylessPointsPerMin: 2, redisTimeoutMs: 150 }));
      const bucket = { kind: 'ip', ip: '203.0.113.100' } as const;

      const started = Date.now();
      const ds = await Promise.all([1, 2, 3].map(() => limits.consume(bucket, 1)));
      const elapsed = Date.now() - started;

      // Timers never fire early: the lower bound shows the answer waited for redisTimeoutMs (150).
      // The upper bound only proves it did not hang on the silent Redis; generous, not a speed check.
      expect(elapsed).toBeGreaterThanOrEqual(100);
      expect(elapsed).toBeLessThan(15_000);
      expect(ds.filter((d) => d.allowed)).toHaveLength(2);
      expect(ds.every((d) => d.degraded)).toBe(true);
    });
  });
});
