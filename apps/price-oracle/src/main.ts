import './instrument';
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { BaseEnv, HealthController, coreProviders, loadEnvOrExit, port, startService } from '@xchain/service-kit';

// The price sources and their NATS publication arrive with the quoting issue; today the service
// runs, joins the bus and reports readiness like every other.
const env = loadEnvOrExit('price-oracle', BaseEnv.extend({ PRICE_ORACLE_PORT: port(8083) }));

@Module({
  controllers: [HealthController],
  providers: coreProviders({ service: 'price-oracle', natsUrl: env.NATS_URL, natsConnectTimeoutMs: env.NATS_CONNECT_TIMEOUT_MS }),
})
class PriceOracleModule {}

void startService({ service: 'price-oracle', module: PriceOracleModule, host: env.HOST, port: env.PRICE_ORACLE_PORT });
