import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit, type Provider } from '@nestjs/common';
import { KEY_CHANGED_SUBJECT, KeyChangedEventSchema } from '@xchain/contracts';
import { RpcClient, type NatsConnection, type Subscription } from '@xchain/messaging';
import { Clock, LOGGER, Metrics, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { Redis } from 'ioredis';
import type { GatewayEnv } from '../env';
import { RateLimits } from '../limits/rate-limits';
import { rateLimitFallbackCounter } from '../metrics/gateway-metrics';
import { AccessControl } from './access-control';
import { KeyCache } from './key-cache';

/** The gateway's one Redis client: rate limits and idempotency keys. */
export const REDIS = Symbol('GATEWAY_REDIS');
const decoder = new TextDecoder();

/** Drops a cached key lookup the moment the partner-service says the key changed. */
@Injectable()
class KeyChangeListener implements OnModuleInit, OnApplicationShutdown {
  private sub?: Subscription;

  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(KeyCache) private readonly keys: KeyCache,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  onModuleInit(): void {
    this.sub = this.nc.subscribe(KEY_CHANGED_SUBJECT, {
      callback: (err, msg) => {
        if (err) return;
        try {
          const event = KeyChangedEventSchema.safeParse(JSON.parse(decoder.decode(msg.data)));
          if (event.success) this.keys.evict(event.data.key_hash);
        } catch {
          this.log.warn('dropped a malformed key_changed event');
        }
      },
    });
  }

  onApplicationShutdown(): void {
    this.sub?.unsubscribe();
    this.redis.disconnect();
  }
}

export function accessProviders(env: GatewayEnv): Provider[] {
  return [
    {
      provide: REDIS,
      inject: [LOGGER],
      useFactory: (log: Logger) => {
        // No offline queue: while Redis is away a command fails at once and the in-process limiter answers.
        const redis = new Redis(env.REDIS_URL, {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          connectTimeout: 2000,
          commandTimeout: env.REDIS_TIMEOUT_MS,
          lazyConnect: false,
        });
        let warned = false;
        redis.on('error', (err: Error) => {
          if (!warned)
            log.warn({ err: err.message }, 'redis unavailable; rate limits fall back to this process, idempotency keys are not kept');
          warned = true;
        });
        redis.on('ready', () => (warned = false));
        return redis;
      },
    },
    {
      provide: RateLimits,
      inject: [REDIS, Metrics],
      useFactory: (redis: Redis, metrics: Metrics) =>
        new RateLimits(redis, {
          keyPrefix: env.RATE_LIMIT_PREFIX,
          keylessPointsPerMin: env.KEYLESS_POINTS_PER_MIN,
          partnerPointsPerMin: env.PARTNER_POINTS_PER_MIN,
          redisTimeoutMs: env.REDIS_TIMEOUT_MS,
          onFallback: rateLimitFallbackCounter(metrics),
        }),
    },
    {
      provide: KeyCache,
      inject: [LOGGER, Clock],
      useFactory: (log: Logger, clock: Clock) =>
        new KeyCache(env.KEY_CACHE_TTL_MS, env.KEY_CACHE_MAX_ENTRIES, clock, { staleMs: env.KEY_CACHE_STALE_MS, log }),
    },
    {
      provide: AccessControl,
      inject: [RpcClient, KeyCache, RateLimits],
      useFactory: (rpc: RpcClient, keys: KeyCache, limits: RateLimits) => new AccessControl(rpc, keys, limits, env.AUTH_TIMEOUT_MS),
    },
    KeyChangeListener,
  ];
}
