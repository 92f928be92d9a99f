import './instrument';
import 'reflect-metadata';
import { Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { BaseEnv, HealthController, HealthRegistry, coreProviders, loadEnvOrExit, port, startService } from '@xchain/service-kit';
import { Pool } from 'pg';
import { z } from 'zod';

// Partners, keys, sessions and the ledger (with their Prisma schema) arrive with the partners
// issue; today the service runs, joins the bus, and its readiness reflects NATS and its database.
const env = loadEnvOrExit(
  'partner-service',
  BaseEnv.extend({
    PARTNER_SERVICE_PORT: port(8085),
    DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/partner_service'),
  }),
);
const PG = Symbol('PG');

@Injectable()
class PoolLifecycle implements OnApplicationShutdown {
  constructor(@Inject(PG) private readonly pool: Pool) {}
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}

@Module({
  controllers: [HealthController],
  providers: [
    ...coreProviders({ service: 'partner-service', natsUrl: env.NATS_URL, natsConnectTimeoutMs: env.NATS_CONNECT_TIMEOUT_MS }),
    {
      provide: PG,
      inject: [HealthRegistry],
      useFactory: (health: HealthRegistry) => {
        const pool = new Pool({ connectionString: env.DATABASE_URL, max: 4, connectionTimeoutMillis: 2000 });
        pool.on('error', () => undefined); // reported through readiness
        health.register('database', async () => {
          await pool.query('SELECT 1');
          return { ok: true };
        });
        return pool;
      },
    },
    PoolLifecycle,
  ],
})
class PartnerServiceModule {}

void startService({ service: 'partner-service', module: PartnerServiceModule, host: env.HOST, port: env.PARTNER_SERVICE_PORT });
