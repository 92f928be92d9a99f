import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { RedisLimitBatch, type WindowCount } from './redis-batch';

/** Who a request is charged to (decisions D10). */
export type LimitBucket =
  | { kind: 'ip'; ip: string } // keyless caller, budget = keylessPointsPerMin
  | { kind: 'key'; keyId: string; pointsPerMin: number } // API key, its own points_per_min
  | { kind: 'partner'; partnerId: string }; // bearer partner ops, budget = partnerPointsPerMin

export interface LimitDecision {
  allowed: boolean;
  /** The bucket's points per minute. */
  limit: number;
  remaining: number;
  /** Seconds until the current window resets. */
  resetSecs: number;
  /** Seconds to wait before retrying; 0 when allowed, at least 1 when not. */
  retryAfterSecs: number;
  /** The answer did not come from Redis (in-memory insurance limiter, or failed open). */
  degraded: boolean;
}

export interface RateLimitOptions {
  keyPrefix: string;
  keylessPointsPerMin: number;
  partnerPointsPerMin: number;
  /** Longest wait for Redis before answering from the in-process insurance limiter. */
  redisTimeoutMs: number;
  /** Told of every decision Redis did not make: the insurance limiter answered, or nothing did (failed open). */
  onFallback?: (mode: 'insurance' | 'fail_open') => void;
}

const WINDOW_SECS = 60;

/**
 * Fixed 60-second windows in Redis (one atomic charge per check, so replicas share a budget; the
 * checks of one event-loop turn travel in one script call, see RedisLimitBatch), with a
 * per-process in-memory insurance limiter while Redis is down or slow, and fail-open on anything
 * else. Counters are kept under rate-limiter-flexible's key names and with its script's steps.
 */
export class RateLimits {
  /** One in-memory limiter per prefix (and so per points value), made on first use. */
  private readonly insurance = new Map<string, RateLimiterMemory>();
  private readonly batch: RedisLimitBatch;

  constructor(
    redis: Redis,
    private readonly opts: RateLimitOptions,
  ) {
    if (!opts.keyPrefix) throw new Error('RateLimits: keyPrefix is required');
    if (!(Number.isFinite(opts.redisTimeoutMs) && opts.redisTimeoutMs > 0)) {
      throw new Error('RateLimits: redisTimeoutMs must be a positive number');
    }
    this.batch = new RedisLimitBatch(redis, opts.redisTimeoutMs);
  }

  async consume(bucket: LimitBucket, cost: number): Promise<LimitDecision> {
    const { prefix, key, limit } = this.describe(bucket);
    const points = Number.isFinite(cost) && cost > 0 ? Math.ceil(cost) : 1;
    if (points > limit) {
      // Can never fit in a window: refuse without spending the caller's budget.
      return { allowed: false, limit, remaining: 0, resetSecs: WINDOW_SECS, retryAfterSecs: WINDOW_SECS, degraded: false };
    }
    let count: WindowCount;
    try {
      count = await this.batch.charge(`${prefix}:${key}`, points, WINDOW_SECS);
    } catch {
      return this.insured(prefix, key, limit, points);
    }
    const [consumed, ttlMs] = count;
    if (consumed > limit) {
      const wait = secondsFrom(ttlMs, 1);
      return { allowed: false, limit, remaining: 0, resetSecs: wait, retryAfterSecs: wait, degraded: false };
    }
    return {
      allowed: true,
      limit,
      remaining: Math.max(0, limit - consumed),
      resetSecs: secondsFrom(ttlMs, 0),
      retryAfterSecs: 0,
      degraded: false,
    };
  }

  /** Redis failed or timed out on this check: the in-process limiter decides, once. */
  private async insured(prefix: string, key: string, limit: number, points: number): Promise<LimitDecision> {
    let limiter = this.insurance.get(prefix);
    if (!limiter) {
      limiter = new RateLimiterMemory({ keyPrefix: prefix, points: limit, duration: WINDOW_SECS });
      this.insurance.set(prefix, limiter);
    }
    try {
      const res = await limiter.consume(key, points);
      this.opts.onFallback?.('insurance');
      return {
        allowed: true,
        limit,
        remaining: Math.max(0, res.remainingPoints),
        resetSecs: secondsFrom(res.msBeforeNext, 0),
        retryAfterSecs: 0,
        degraded: true,
      };
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        this.opts.onFallback?.('insurance');
        const wait = secondsFrom(err.msBeforeNext, 1);
        return { allowed: false, limit, remaining: 0, resetSecs: wait, retryAfterSecs: wait, degraded: true };
      }
      // Neither Redis nor the insurance limiter could answer: let the request through.
      this.opts.onFallback?.('fail_open');
      return { allowed: true, limit, remaining: Math.max(0, limit - points), resetSecs: WINDOW_SECS, retryAfterSecs: 0, degraded: true };
    }
  }

  private describe(bucket: LimitBucket): { prefix: string; key: string; limit: number } {
    const base = this.opts.keyPrefix;
    switch (bucket.kind) {
      case 'ip':
        return { prefix: `${base}:ip`, key: bucket.ip, limit: wholePoints(this.opts.keylessPointsPerMin) };
      case 'partner':
        return { prefix: `${base}:partner`, key: bucket.partnerId, limit: wholePoints(this.opts.partnerPointsPerMin) };
      case 'key': {
        const limit = wholePoints(bucket.pointsPerMin);
        return { prefix: `${base}:key:${limit}`, key: bucket.keyId, limit };
      }
    }
  }
}

/** A budget as a whole number of points; anything unusable is 0 (nothing is ever allowed). */
function wholePoints(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

function secondsFrom(ms: number, min: number): number {
  return Number.isFinite(ms) ? Math.max(min, Math.ceil(ms / 1000)) : min;
}
