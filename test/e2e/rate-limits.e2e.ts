import { request } from 'node:http';
import { type ApiResponse, XchainApiError, XchainClient } from '@xchain/client';
import { type E2eStack, startE2eStack } from '../support/e2e-stack';
import { PartnerSession } from '../support/partner-session';
import { EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';

/** What a test looks at in one answer, a success or a typed refusal alike. */
interface Answer {
  status: number;
  headers: Headers;
  /** The refusal, typed; undefined for a success. */
  error?: XchainApiError;
}

/** Settles a client call into an Answer; anything but a success or an API error (a network error, a timeout) fails the test. */
const answer = (call: Promise<ApiResponse<unknown>>): Promise<Answer> =>
  call.then(
    (r) => ({ status: r.status, headers: r.headers }),
    (err: unknown) => {
      if (!(err instanceof XchainApiError)) throw err;
      return { status: err.httpStatus, headers: err.headers, error: err };
    },
  );

/** A CORS preflight from a chosen source address. */
function preflight(
  url: string,
  from: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    // Raw HTTP on purpose: an OPTIONS preflight is the browser's own request, not an API operation, so the typed client never sends one.
    const req = request(url, { method: 'OPTIONS', localAddress: from, headers, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('timeout', () => req.destroy(new Error('preflight: no answer within 10 s')));
    req.on('error', reject);
    req.end();
  });
}

const KEYLESS = 20;
const PARTNER = 15;

/** D10 under concurrency: bounded bursts against each budget, through the gateway and Redis. */
jest.setTimeout(120_000);

describe('rate limits', () => {
  let e2e: E2eStack;
  /**
   * The typed client from one loopback source address: the limiter keys anonymous callers on their
   * IP, so each test is a caller of its own (127.0.0.2 is the trusted proxy here).
   */
  const from = (localAddress: string, auth: { apiKey?: string; sessionToken?: string } = {}) =>
    new XchainClient({ baseUrl: e2e.gatewayUrl, localAddress, timeoutMs: 10_000, ...auth });
  const burst = (n: number, one: () => Promise<Answer>) => Promise.all(Array.from({ length: n }, one));
  const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;
  const preview = USDC_ETH_TO_ARB;

  const expectLimited = (a: Answer, limit: number) => {
    expect(a.status).toBe(429);
    const err = a.error!;
    expect({ code: err.code, reason: err.reason, metadata: err.metadata }).toEqual({
      code: 8,
      reason: 'RATE_LIMITED',
      metadata: { limit: String(limit), window_secs: '60' },
    });
    expect(err.status.details).toContainEqual({
      '@type': 'type.googleapis.com/google.rpc.RetryInfo',
      retry_delay: expect.stringMatching(/^\d+s$/),
    });
    // the delay in the body and in Retry-After agree
    const retry = Number(a.headers.get('retry-after'));
    expect(err.retryAfterSecs).toBe(retry);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(a.headers.get('ratelimit-limit')).toBe(String(limit));
    expect(a.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(a.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
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
    const proxy = from('127.0.0.2');
    const client = { 'x-forwarded-for': '198.51.100.10' };
    const answers = await burst(50, () => answer(proxy.call('ListTokens', { headers: client })));
    expect(count(answers, 200)).toBe(KEYLESS);
    expect(count(answers, 429)).toBe(50 - KEYLESS);
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.map((a) => Number(a.headers.get('ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: KEYLESS }, (_, i) => i),
    );
    for (const a of ok) expect(a.headers.get('ratelimit-limit')).toBe(String(KEYLESS));
    for (const a of answers.filter((x) => x.status === 429)) expectLimited(a, KEYLESS);
    // another client behind the same trusted proxy has its own budget
    expect((await answer(proxy.call('ListTokens', { headers: { 'x-forwarded-for': '198.51.100.11' } }))).status).toBe(200);
  });

  it('believes X-Forwarded-For only from the trusted proxy', async () => {
    // From 127.0.0.1 (not trusted) every forged address counts against 127.0.0.1 itself.
    const untrusted = from('127.0.0.1');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => answer(untrusted.call('ListTokens', { headers: { 'x-forwarded-for': `203.0.113.${i}` } }))),
    );
    expect(count(answers, 200)).toBe(KEYLESS);
    expect(count(answers, 429)).toBe(30 - KEYLESS);
    for (const a of answers.filter((x) => x.status === 429)) expectLimited(a, KEYLESS);
  });

  it("holds an API key's points_per_min, charging each operation its documented cost", async () => {
    await e2e.admin('create-partner', '--email', 'burst@example.com');
    const key = (await e2e.admin('create-key', '--email', 'burst@example.com', '--name', 'burst')).out;
    expect((await e2e.admin('set-tier', '--key-id', key.key.id, '--tier', 'trial', '--points-per-min', '10')).code).toBe(0);
    const keyed = from('127.0.0.3', { apiKey: key.secret });
    // GetQuote costs 2 points: 5 of 12 fit in 10.
    const quotes = await burst(12, () => answer(keyed.call('GetQuote', { ...preview, recipient: EVM_USER, refund_address: EVM_USER })));
    expect(count(quotes, 200)).toBe(5);
    expect(count(quotes, 429)).toBe(7);
    for (const a of quotes.filter((x) => x.status === 429)) expectLimited(a, 10);
    // The key's budget is its own: the keyless budget of the same IP is untouched.
    expect((await answer(from('127.0.0.3').call('PreviewQuote', preview))).status).toBe(200);
  });

  it("holds a partner's budget on partner operations", async () => {
    const s = await PartnerSession.create(e2e, 'ops@example.com');
    const partner = from('127.0.0.4', { sessionToken: s.token });
    const answers = await burst(25, () => answer(partner.call('GetPartner')));
    expect(count(answers, 200)).toBe(PARTNER);
    expect(count(answers, 429)).toBe(25 - PARTNER);
    for (const a of answers.filter((x) => x.status === 429)) expectLimited(a, PARTNER);
  });

  it('counts failed API keys against the IP, so guessing keys meets the keyless limit', async () => {
    // ListTokens takes no key, so the client would not send one: force the header.
    const guesser = from('127.0.0.5');
    const answers = await burst(KEYLESS + 5, () => answer(guesser.call('ListTokens', { headers: { 'x-api-key': 'xk_guess' } })));
    expect(count(answers, 401)).toBe(KEYLESS);
    for (const a of answers.filter((x) => x.status === 401)) expect([a.error?.code, a.error?.reason]).toEqual([16, 'INVALID_API_KEY']);
    expect(count(answers, 429)).toBe(5);
    for (const a of answers.filter((x) => x.status === 429)) expectLimited(a, KEYLESS);
  });

  it('serves browsers (CORS): preflights are free, and refusals carry the headers a page needs to read them', async () => {
    const page = from('127.0.0.6');
    const origin = { origin: 'https://app.example' };
    const preflights = await Promise.all(
      Array.from({ length: KEYLESS + 5 }, () =>
        preflight(`${e2e.gatewayUrl}/json/v1/partner`, '127.0.0.6', {
          ...origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        }),
      ),
    );
    for (const p of preflights) {
      expect(p.status).toBe(204);
      expect(p.headers['access-control-allow-origin']).toBe('*');
      expect(p.headers['access-control-allow-headers']).toContain('authorization');
      expect(p.headers['access-control-allow-headers']).toContain('x-api-key');
    }
    // none of them was counted: the IP's whole budget is still there
    const first = await answer(page.call('ListTokens', { headers: origin }));
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-remaining')).toBe(String(KEYLESS - 1));
    expect(first.headers.get('access-control-expose-headers')).toContain('ratelimit-remaining');
    const rest = await burst(KEYLESS, () => answer(page.call('ListTokens', { headers: origin })));
    const limited = rest.find((a) => a.status === 429)!;
    expectLimited(limited, KEYLESS);
    expect(limited.headers.get('access-control-allow-origin')).toBe('*');
    const unauthenticated = await answer(from('127.0.0.7').call('GetPartner', { headers: origin }));
    expect([unauthenticated.status, unauthenticated.error?.reason, unauthenticated.headers.get('access-control-allow-origin')]).toEqual([
      401,
      'MISSING_CREDENTIALS',
      '*',
    ]);
    // without an Origin (a server-side caller) no CORS header is added
    expect((await answer(from('127.0.0.7').call('ListTokens'))).headers.get('access-control-allow-origin')).toBeNull();
  });
});
