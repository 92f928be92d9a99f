import { request } from 'node:http';
import { type E2eStack, startE2eStack } from '../support/e2e-stack';
import { errorView } from '../support/http';
import { EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** One HTTP call from a chosen loopback source address (127.0.0.2 is the trusted proxy here). */
function send(url: string, opts: { method?: string; from?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = request(
      url,
      {
        method: opts.method ?? 'GET',
        localAddress: opts.from ?? '127.0.0.1',
        headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...opts.headers },
        timeout: 10_000,
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const KEYLESS = 20;
const PARTNER = 15;

/** D10 under concurrency: bounded bursts against each budget, through the gateway and Redis. */
describe('rate limits', () => {
  let e2e: E2eStack;
  const url = (p: string) => `${e2e.gatewayUrl}/json/v1${p}`;
  const burst = (n: number, one: () => Promise<Answer>) => Promise.all(Array.from({ length: n }, one));
  const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;
  const preview = USDC_ETH_TO_ARB;

  const expectLimited = (a: Answer, limit: number) => {
    expect(a.status).toBe(429);
    expect(errorView(a.status, a.body)).toMatchObject({ code: 8, reason: 'RATE_LIMITED' });
    expect(a.body.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retry_delay: expect.stringMatching(/^\d+s$/) });
    const retry = Number(a.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(a.headers['ratelimit-limit']).toBe(String(limit));
    expect(a.headers['ratelimit-remaining']).toBe('0');
    expect(Number(a.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
  };

  beforeAll(async () => {
    e2e = await startE2eStack({
      KEYLESS_POINTS_PER_MIN: String(KEYLESS),
      PARTNER_POINTS_PER_MIN: String(PARTNER),
      TRUSTED_PROXIES: '127.0.0.2',
      // These tests count Redis' shared budget exactly: on a loaded machine a Redis answer slower
      // than the default 250 ms would be made by the per-process insurance limiter instead (its
      // own tests are in apps/gateway/src/limits/rate-limits.int.ts).
      REDIS_TIMEOUT_MS: '3000',
    });
  }, 120_000);

  afterAll(async () => {
    await e2e?.stop();
  });

  it('holds the keyless per-IP budget under a burst, with RateLimit headers on every answer', async () => {
    const client = { 'x-forwarded-for': '198.51.100.10' };
    const answers = await burst(50, () => send(url('/tokens'), { from: '127.0.0.2', headers: client }));
    expect(count(answers, 200)).toBe(KEYLESS);
    expect(count(answers, 429)).toBe(50 - KEYLESS);
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.map((a) => Number(a.headers['ratelimit-remaining'])).sort((a, b) => a - b)).toEqual(Array.from({ length: KEYLESS }, (_, i) => i));
    for (const a of ok) expect(a.headers['ratelimit-limit']).toBe(String(KEYLESS));
    for (const a of answers.filter((x) => x.status === 429)) expectLimited(a, KEYLESS);
    // another client behind the same trusted proxy has its own budget
    expect((await send(url('/tokens'), { from: '127.0.0.2', headers: { 'x-forwarded-for': '198.51.100.11' } })).status).toBe(200);
  });

  it('believes X-Forwarded-For only from the trusted proxy', async () => {
    // From 127.0.0.1 (not trusted) every forged address counts against 127.0.0.1 itself.
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => send(url('/tokens'), { from: '127.0.0.1', headers: { 'x-forwarded-for': `203.0.113.${i}` } })),
    );
    expect(count(answers, 200)).toBe(KEYLESS);
    expect(count(answers, 429)).toBe(30 - KEYLESS);
  });

  it("holds an API key's points_per_min, charging each operation its documented cost", async () => {
    await e2e.admin('create-partner', '--email', 'burst@example.com');
    const key = (await e2e.admin('create-key', '--email', 'burst@example.com', '--name', 'burst')).out;
    expect((await e2e.admin('set-tier', '--key-id', key.key.id, '--tier', 'trial', '--points-per-min', '10')).code).toBe(0);
    const headers = { 'x-api-key': key.secret };
    // GetQuote costs 2 points: 5 of 12 fit in 10.
    const quotes = await burst(12, () =>
      send(url('/quote'), { method: 'POST', from: '127.0.0.3', headers, body: { ...preview, recipient: EVM_USER, refund_address: EVM_USER } }),
    );
    expect(count(quotes, 200)).toBe(5);
    for (const a of quotes.filter((x) => x.status === 429)) expectLimited(a, 10);
    // The key's budget is its own: the keyless budget of the same IP is untouched.
    expect((await send(url('/quote/preview'), { method: 'POST', from: '127.0.0.3', body: preview })).status).toBe(200);
  });

  it("holds a partner's budget on partner operations", async () => {
    await e2e.admin('create-partner', '--email', 'ops@example.com');
    const s = (await e2e.admin('issue-session', '--email', 'ops@example.com')).out;
    const answers = await burst(25, () => send(url('/partner'), { from: '127.0.0.4', headers: { authorization: `Bearer ${s.token}` } }));
    expect(count(answers, 200)).toBe(PARTNER);
    for (const a of answers.filter((x) => x.status === 429)) expectLimited(a, PARTNER);
  });

  it('counts failed API keys against the IP, so guessing keys meets the keyless limit', async () => {
    const answers = await burst(KEYLESS + 5, () => send(url('/tokens'), { from: '127.0.0.5', headers: { 'x-api-key': 'xk_guess' } }));
    expect(count(answers, 401)).toBe(KEYLESS);
    expect(count(answers, 429)).toBe(5);
  });

  it('serves browsers (CORS): preflights are free, and refusals carry the headers a page needs to read them', async () => {
    const from = '127.0.0.6';
    const origin = { origin: 'https://app.example' };
    const preflights = await burst(KEYLESS + 5, () =>
      send(url('/partner'), { method: 'OPTIONS', from, headers: { ...origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } }),
    );
    for (const p of preflights) {
      expect(p.status).toBe(204);
      expect(p.headers['access-control-allow-origin']).toBe('*');
      expect(p.headers['access-control-allow-headers']).toContain('authorization');
      expect(p.headers['access-control-allow-headers']).toContain('x-api-key');
    }
    // none of them was counted: the IP's whole budget is still there
    const first = await send(url('/tokens'), { from, headers: origin });
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-remaining']).toBe(String(KEYLESS - 1));
    expect(first.headers['access-control-expose-headers']).toContain('ratelimit-remaining');
    const rest = await burst(KEYLESS, () => send(url('/tokens'), { from, headers: origin }));
    const limited = rest.find((a) => a.status === 429)!;
    expectLimited(limited, KEYLESS);
    expect(limited.headers['access-control-allow-origin']).toBe('*');
    const unauthenticated = await send(url('/partner'), { from: '127.0.0.7', headers: origin });
    expect([unauthenticated.status, unauthenticated.headers['access-control-allow-origin']]).toEqual([401, '*']);
    // without an Origin (a server-side caller) no CORS header is added
    expect((await send(url('/tokens'), { from: '127.0.0.7' })).headers['access-control-allow-origin']).toBeUndefined();
  });
});
