import { freePort } from '@xchain/stack';
import { Metrics } from '@xchain/service-kit';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { RateLimits } from '../limits/rate-limits';
import { rateLimitFallbackCounter } from './gateway-metrics';

describe('rate-limit fallback counter', () => {
  it('counts every decision the per-process limiter made because Redis could not', async () => {
    const registry = new Registry();
    // Nothing listens on this port: every Redis command fails at once (no offline queue), as in production.
    const redis = new Redis(await freePort(), '127.0.0.1', {
      enableOfflineQueue: false,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    redis.on('error', () => undefined);
    try {
      const limits = new RateLimits(redis, {
        keyPrefix: 'rl-test',
        keylessPointsPerMin: 2,
        partnerPointsPerMin: 10,
        redisTimeoutMs: 200,
        onFallback: rateLimitFallbackCounter(new Metrics(registry)),
      });
      const decisions = [];
      for (let i = 0; i < 3; i++) decisions.push(await limits.consume({ kind: 'ip', ip: '198.51.100.7' }, 1));
      expect(decisions.map((d) => [d.allowed, d.degraded])).toEqual([
        [true, true],
        [true, true],
        [false, true],
      ]);
      const text = await registry.metrics();
      expect(text).toContain('rate_limit_fallback_total{mode="insurance"} 3');
      expect(text).toContain('rate_limit_fallback_total{mode="fail_open"} 0');
    } finally {
      redis.disconnect();
    }
  });
});
