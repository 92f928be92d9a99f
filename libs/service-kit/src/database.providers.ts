import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { HealthRegistry } from './health';

/** What a service's Prisma client offers that readiness and shutdown need. */
export interface DatabaseClient {
  $queryRawUnsafe(query: string): Promise<unknown>;
  $disconnect(): Promise<void>;
}

/**
 * A service's own database client under `token`: created once, checked by `/readyz` as
 * `database`, and disconnected on shutdown.
 */
export function databaseProviders(token: symbol, create: () => DatabaseClient): Provider[] {
  @Injectable()
  class DatabaseLifecycle implements OnApplicationShutdown {
    constructor(@Inject(token) private readonly db: DatabaseClient) {}
    async onApplicationShutdown(): Promise<void> {
      await this.db.$disconnect();
    }
  }
  return [
    {
      provide: token,
      inject: [HealthRegistry],
      useFactory: (health: HealthRegistry) => {
        const db = create();
        health.register('database', async () => {
          await db.$queryRawUnsafe('SELECT 1');
          return { ok: true };
        });
        return db;
      },
    },
    DatabaseLifecycle,
  ];
}
