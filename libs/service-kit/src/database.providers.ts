import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { RpcServer } from '@xchain/messaging';
import { HealthRegistry } from './health';

/** What a service's Prisma client offers that readiness and shutdown need. */
export interface DatabaseClient {
  $queryRawUnsafe(query: string): Promise<unknown>;
  $disconnect(): Promise<void>;
}

/**
 * A service's own database client under `token`: created once, checked by `/readyz` as
 * `database`, and disconnected on shutdown. Its `SELECT 1` is also the probe that tells the RPC
 * server's outage tracker when the database is back (one log line per outage state change).
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
      inject: [HealthRegistry, RpcServer],
      useFactory: (health: HealthRegistry, rpc: RpcServer) => {
        const db = create();
        health.register('database', async () => {
          await db.$queryRawUnsafe('SELECT 1');
          return { ok: true };
        });
        rpc.databaseOutage.setProbe(() => db.$queryRawUnsafe('SELECT 1'));
        return db;
      },
    },
    DatabaseLifecycle,
  ];
}
