import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { createPartnerServiceDb, type PrismaClient } from '@xchain/partner-service-db';
import { HealthRegistry } from '@xchain/service-kit';
import { env } from './env';

export const DB = Symbol('DB');

@Injectable()
export class DbLifecycle implements OnApplicationShutdown {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}
  async onApplicationShutdown(): Promise<void> {
    await this.db.$disconnect();
  }
}

export const dbProviders: Provider[] = [
  {
    provide: DB,
    inject: [HealthRegistry],
    useFactory: (health: HealthRegistry) => {
      const db = createPartnerServiceDb(env.DATABASE_URL, env.DATABASE_POOL_SIZE);
      health.register('database', async () => {
        await db.$queryRaw`SELECT 1`;
        return { ok: true };
      });
      return db;
    },
  },
  DbLifecycle,
];
