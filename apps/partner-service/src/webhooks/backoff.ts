export interface RetryPolicy {
  /** Delay after the first failed attempt; each further failure doubles it. */
  baseMs: number;
  /** The most one wait may last. */
  maxMs: number;
  /** No attempt later than this after the first attempt. */
  windowMs: number;
}

/** The wait after `attempts` failed attempts (1 → base, 2 → 2 × base, …), capped. */
export function retryDelayMs(attempts: number, policy: Pick<RetryPolicy, 'baseMs' | 'maxMs'>): number {
  const doublings = Math.min(Math.max(attempts - 1, 0), 40); // 2^40 × base exceeds any cap
  return Math.min(policy.baseMs * 2 ** doublings, policy.maxMs);
}

/**
 * When to try again after `attempts` failed attempts, or undefined when that would fall past the
 * retry window that opened with the first attempt: the delivery has then failed for good.
 */
export function nextAttemptAt(attempts: number, firstAttemptAt: Date, now: Date, policy: RetryPolicy): Date | undefined {
  const at = now.getTime() + retryDelayMs(attempts, policy);
  return at <= firstAttemptAt.getTime() + policy.windowMs ? new Date(at) : undefined;
}
