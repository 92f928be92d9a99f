import type { Redis } from 'ioredis';
import { RLWrapperTimeouts, RateLimiterMemory, RateLimiterRes, type RateLimiterLike } from 'rate-limiter-flexible';
import { BatchedRateLimiterRedis, RedisLimitBatch } from './redis-batch';

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
 * The in-process fallback used while Redis is unreachable or slow. It remembers the answers it
 * gave, so a decision can say it was degraded: the library resolves or rejects with the insurance
 * limiter's own RateLimiterRes object, unchanged.
 */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    opts: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly answered: WeakSet<object>,
  ) {
    super(opts);
  }

  override consume(key: string | number, pointsToConsume?: number, options?: { [key: string]: unknown }): Promise<RateLimiterRes> {
    return super.consume(key, pointsToConsume, options).then(
      (res) => {
        this.answered.add(res);
        return res;
      },
      (err: unknown) => {
        if (err instanceof RateLimiterRes) this.answered.add(err);
        throw err;
      },
    );
  }
}

/**
 * Fixed 60-second windows in Redis (one atomic Lua INCRBY+TTL per call, so replicas share a budget;
 * the calls of one event-loop turn travel in one pipeline),
 * with a per-process in-memory insurance limiter while Redis is down, and fail-open on anything else.
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterLike>();
  private readonly insuranceAnswers = new WeakSet<object>();
  /** Every limiter's checks of one event-loop turn go to Redis in one pipeline. */
  private readonly batch: RedisLimitBatch;

  constructor(
    private readonly redis: Redis,
    private readonly opts: RateLimitOptions,
  ) {
    this.batch = new RedisLimitBatch(redis);
    if (!opts.keyPrefix) throw new Error('RateLimits: keyPrefix is required');
    if (!(Number.isFinite(opts.redisTimeoutMs) && opts.redisTimeoutMs > 0)) {
      throw new Error('RateLimits: redisTimeoutMs must be a positive number');
    }
  }

  async consume(bucket: LimitBucket, cost: number): Promise<LimitDecision> {
    const { prefix, key, limit } = this.describe(bucket);
    const points = Number.isFinite(cost) && cost > 0 ? Math.ceil(cost) : 1;
    if (points > limit) {
      // Can never fit in a window: refuse without spending the caller's budget.
      return { allowed: false, limit, remaining: 0, resetSecs: WINDOW_SECS, retryAfterSecs: WINDOW_SECS, degraded: false };
    }
    try {
      const res = await this.limiter(prefix, limit).consume(key, points);
      return {
        allowed: true,
        limit,
        remaining: Math.max(0, res.remainingPoints),
        resetSecs: secondsFrom(res.msBeforeNext, 0),
        retryAfterSecs: 0,
        degraded: this.fellBack(res),
      };
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        const wait = secondsFrom(err.msBeforeNext, 1);
        return { allowed: false, limit, remaining: 0, resetSecs: wait, retryAfterSecs: wait, degraded: this.fellBack(err) };
      }
      // Neither Redis nor the insurance limiter could answer: let the request through.
      this.opts.onFallback?.('fail_open');
      return { allowed: true, limit, remaining: Math.max(0, limit - points), resetSecs: WINDOW_SECS, retryAfterSecs: 0, degraded: true };
    }
  }

  /** Whether the insurance limiter gave this answer (and if so, says so). */
  private fellBack(res: RateLimiterRes): boolean {
    const degraded = this.insuranceAnswers.has(res);
    if (degraded) this.opts.onFallback?.('insurance');
    return degraded;
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

  /** One limiter per prefix (and so per points value), created on first use. */
  private limiter(prefix: string, points: number): RateLimiterLike {
    let limiter = this.limiters.get(prefix);
    if (!limiter) {
      const insuranceLimiter = new InsuranceLimiter({ keyPrefix: prefix, points, duration: WINDOW_SECS }, this.insuranceAnswers);
      // The insurance limiter sits on the timeout wrapper only: a Redis error or a timeout then
      // charges it exactly once (on the inner limiter too, a late Redis error would charge it twice).
      limiter = new RLWrapperTimeouts({
        limiter: new BatchedRateLimiterRedis({ storeClient: this.redis, keyPrefix: prefix, points, duration: WINDOW_SECS }, this.batch),
        timeoutMs: this.opts.redisTimeoutMs,
        insuranceLimiter,
      });
      this.limiters.set(prefix, limiter);
    }
    return limiter;
  }
}

/** A budget as a whole number of points; anything unusable is 0 (nothing is ever allowed). */
function wholePoints(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

function secondsFrom(ms: number, min: number): number {
  return Number.isFinite(ms) ? Math.max(min, Math.ceil(ms / 1000)) : min;
}
