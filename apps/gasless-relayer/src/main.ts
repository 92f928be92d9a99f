import './instrument';
import 'reflect-metadata';
import { Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { BaseEnv, HealthController, HealthRegistry, coreProviders, loadEnvOrExit, port, startService } from '@xchain/service-kit';
import { Redis } from 'ioredis';
import { z } from 'zod';

// Relay jobs (BullMQ on this Redis) arrive with the gasless issue; today the service runs, joins
// the bus, and its readiness reflects NATS and Redis.
const env = loadEnvOrExit(
  'gasless-relayer',
  BaseEnv.extend({ GASLESS_RELAYER_PORT: port(8084), REDIS_URL: z.string().default('redis://127.0.0.1:6379') }),
);
const REDIS = Symbol('REDIS');

@Injectable()
class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}

@Module({
  controllers: [HealthController],
  providers: [
    ...coreProviders({ service: 'gasless-relayer', natsUrl: env.NATS_URL, natsConnectTimeoutMs: env.NATS_CONNECT_TIMEOUT_MS }),
    {
      provide: REDIS,
      inject: [HealthRegistry],
      useFactory: (health: HealthRegistry) => {
        const redis = new Redis(env.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1, connectTimeout: 2000 });
        redis.on('error', () => undefined); // reported through readiness, retried by ioredis
        health.register('redis', async () => ({ ok: (await redis.ping()) === 'PONG' }));
        return redis;
      },
    },
    RedisLifecycle,
  ],
})
class GaslessRelayerModule {}

void startService({ service: 'gasless-relayer', module: GaslessRelayerModule, host: env.HOST, port: env.GASLESS_RELAYER_PORT });
