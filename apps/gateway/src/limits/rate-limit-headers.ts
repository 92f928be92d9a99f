import type { LimitDecision } from './rate-limits';

/**
 * The rate-limit response headers for a decision (IETF RateLimit fields, lowercased):
 * `ratelimit-limit`, `ratelimit-remaining`, `ratelimit-reset` (seconds until the window resets)
 * and, on a rejection, `retry-after` (whole seconds, at least 1).
 */
export function rateLimitHeaders(d: LimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-limit': String(wholeAtLeast(d.limit, 0, Math.floor)),
    'ratelimit-remaining': String(wholeAtLeast(d.remaining, 0, Math.floor)),
    'ratelimit-reset': String(wholeAtLeast(d.resetSecs, 0, Math.ceil)),
  };
  if (!d.allowed) headers['retry-after'] = String(wholeAtLeast(d.retryAfterSecs, 1, Math.ceil));
  return headers;
}

function wholeAtLeast(n: number, min: number, round: (x: number) => number): number {
  return Number.isFinite(n) ? Math.max(min, round(n)) : min;
}
