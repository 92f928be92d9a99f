import './instrument';
import 'reflect-metadata';
import { startService } from '@xchain/service-kit';
import { loadPartnerServiceEnv } from './env';
import { PartnerModule } from './partner.module';

const env = loadPartnerServiceEnv();

void startService({
  service: 'partner-service',
  module: PartnerModule.forEnv(env),
  host: env.HOST,
  port: env.PARTNER_SERVICE_PORT,
  metrics: env.METRICS_ENABLED,
});
