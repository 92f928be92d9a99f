import './instrument';
import 'reflect-metadata';
import { startService } from '@xchain/service-kit';
import { loadOracleEnv } from './env';
import { PriceOracleModule } from './oracle.module';

const env = loadOracleEnv();

void startService({
  service: 'price-oracle',
  module: PriceOracleModule.forEnv(env),
  host: env.HOST,
  port: env.PRICE_ORACLE_PORT,
  metrics: env.METRICS_ENABLED,
});
