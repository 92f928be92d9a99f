import { rateLimitHeaders } from './rate-limit-headers';
import type { LimitDecision } from './rate-limits';

const decision = (d: Partial<LimitDecision>): LimitDecision => ({
  allowed: true,
  limit: 60,
  remaining: 59,
  resetSecs: 42,
  retryAfterSecs: 0,
  degraded: false,
  ...d,
});

describe('rateLimitHeaders', () => {
  it('describes an allowed request without retry-after', () => {
    expect(rateLimitHeaders(decision({}))).toEqual({
      'ratelimit-limit': '60',
      'ratelimit-remaining': '59',
      'ratelimit-reset': '42',
    });
  });

  it('adds retry-after to a rejection', () => {
    expect(rateLimitHeaders(decision({ allowed: false, remaining: 0, resetSecs: 17, retryAfterSecs: 17 }))).toEqual({
      'ratelimit-limit': '60',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '17',
      'retry-after': '17',
    });
  });

  it('uses lowercase header names only', () => {
    const names = Object.keys(rateLimitHeaders(decision({ allowed: false, retryAfterSecs: 3 })));
    expect(names).toEqual(names.map((n) => n.toLowerCase()));
  });

  it('writes whole seconds: reset rounds up and is never negative', () => {
    expect(rateLimitHeaders(decision({ resetSecs: 2.1 }))['ratelimit-reset']).toBe('3');
    expect(rateLimitHeaders(decision({ resetSecs: -5 }))['ratelimit-reset']).toBe('0');
    expect(rateLimitHeaders(decision({ resetSecs: Number.NaN }))['ratelimit-reset']).toBe('0');
  });

  it('never tells a rejected caller to retry in less than a second', () => {
    expect(rateLimitHeaders(decision({ allowed: false, retryAfterSecs: 0 }))['retry-after']).toBe('1');
    expect(rateLimitHeaders(decision({ allowed: false, retryAfterSecs: 0.2 }))['retry-after']).toBe('1');
    expect(rateLimitHeaders(decision({ allowed: false, retryAfterSecs: 1.5 }))['retry-after']).toBe('2');
  });

  it('never reports negative or fractional counts', () => {
    const h = rateLimitHeaders(decision({ remaining: -3, limit: 10.7 }));
    expect(h['ratelimit-remaining']).toBe('0');
    expect(h['ratelimit-limit']).toBe('10');
  });

  it('writes every count as plain decimal digits, as String(n) would', () => {
    for (const n of [0, 1, 9, 10, 59, 999_999, 1_000_000, 123_456_789, 2 ** 31, 2 ** 53 - 1]) {
      const h = rateLimitHeaders(decision({ limit: n, remaining: n, resetSecs: n }));
      expect([h['ratelimit-limit'], h['ratelimit-remaining'], h['ratelimit-reset']]).toEqual([String(n), String(n), String(n)]);
    }
    expect(rateLimitHeaders(decision({ remaining: -0 }))['ratelimit-remaining']).toBe('0');
  });

  it('is unaffected by degraded answers', () => {
    expect(rateLimitHeaders(decision({ degraded: true }))).toEqual(rateLimitHeaders(decision({ degraded: false })));
  });
});
