import { Module } from '@nestjs/common';
import { HealthController, coreProviders } from '@xchain/service-kit';
import { dbProviders } from './db.providers';
import { env } from './env';
import { RegistryHandlers } from './registry/registry.handlers';
import { RegistryRepository } from './registry/registry.repository';

@Module({
  controllers: [HealthController],
  providers: [
    ...coreProviders({ service: 'quote-engine', natsUrl: env.NATS_URL, natsConnectTimeoutMs: env.NATS_CONNECT_TIMEOUT_MS }),
    ...dbProviders,
    RegistryRepository,
    RegistryHandlers,
  ],
})
export class AppModule {}
