/**
 * Backoff between attempts of something that fails for a while (a connection, a server not up
 * yet): the first wait is `initialMs`, each next one `factor` times longer, never above `maxMs`.
 * `jitter` (0 to 1) takes up to that fraction off each wait at random, so many processes that
 * failed together do not all come back in the same instant.
 */
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Growth per attempt (default 2). */
  factor?: number;
  /** Fraction of each wait that may be taken off at random (default 0: exact waits). */
  jitter?: number;
  /** Source of randomness for the jitter (tests pass a fixed one). */
  random?: () => number;
}

/** The waits of one run of attempts: `next()` after each failure, `reset()` after a success. */
export class Backoff {
  private current: number;

  constructor(private readonly opts: BackoffOptions) {
    if (!(opts.initialMs > 0) || !(opts.maxMs >= opts.initialMs)) throw new Error('backoff: need 0 < initialMs <= maxMs');
    if ((opts.factor ?? 2) < 1) throw new Error('backoff: factor must be at least 1');
    const jitter = opts.jitter ?? 0;
    if (jitter < 0 || jitter > 1) throw new Error('backoff: jitter must be between 0 and 1');
    this.current = opts.initialMs;
  }

  /** The wait before the next attempt (then grows the one after). */
  next(): number {
    const base = this.current;
    this.current = Math.min(this.current * (this.opts.factor ?? 2), this.opts.maxMs);
    const jitter = this.opts.jitter ?? 0;
    return jitter === 0 ? base : Math.round(base * (1 - jitter * (this.opts.random ?? Math.random)()));
  }

  /** Back to `initialMs`, after an attempt worked. */
  reset(): void {
    this.current = this.opts.initialMs;
  }
}

/** Waits `ms`; an abort ends the wait at once (rejecting with the signal's reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface RetryOptions extends BackoffOptions {
  /** Stops retrying: the pending wait ends and the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called after each failed attempt, with the wait before the next one (logging). */
  onError?: (err: unknown, attempt: number, waitMs: number) => void;
}

/** Calls `fn` until it resolves, waiting with backoff between attempts; only an abort ends it otherwise. */
export async function retryWithBackoff<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const backoff = new Backoff(opts);
  for (let attempt = 1; ; attempt++) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    try {
      return await fn(attempt);
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      const wait = backoff.next();
      opts.onError?.(err, attempt, wait);
      await sleep(wait, opts.signal);
    }
  }
}
