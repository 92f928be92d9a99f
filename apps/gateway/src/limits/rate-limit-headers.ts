import type { LimitDecision } from './rate-limits';

/**
 * The rate-limit response headers for a decision (IETF RateLimit fields, lowercased):
 * `ratelimit-limit`, `ratelimit-remaining`, `ratelimit-reset` (seconds until the window resets)
 * and, on a rejection, `retry-after` (whole seconds, at least 1).
 */
export function rateLimitHeaders(d: LimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-limit': decimal(wholeAtLeast(d.limit, 0, Math.floor)),
    'ratelimit-remaining': decimal(wholeAtLeast(d.remaining, 0, Math.floor)),
    'ratelimit-reset': decimal(wholeAtLeast(d.resetSecs, 0, Math.ceil)),
  };
  if (!d.allowed) headers['retry-after'] = decimal(wholeAtLeast(d.retryAfterSecs, 1, Math.ceil));
  return headers;
}

/**
 * A whole number's decimal digits, as `String(n)` writes them, but by `toFixed(0)`: on this hot
 * path the strings `String(n)` made outlived young GCs in the gateway, and these do not (see
 * `npm run bench:promotion`, docs/benchmarks.md).
 */
function decimal(whole: number): string {
  return whole.toFixed(0);
}

function wholeAtLeast(n: number, min: number, round: (x: number) => number): number {
  return Number.isFinite(n) ? Math.max(min, round(n)) : min;
}
