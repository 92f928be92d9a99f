import './instrument';
import 'reflect-metadata';
import { startService } from '@xchain/service-kit';
import { loadRelayerEnv } from './env';
import { GaslessRelayerModule } from './relayer.module';

const env = loadRelayerEnv();

void startService({
  service: 'gasless-relayer',
  module: GaslessRelayerModule.forEnv(env),
  host: env.HOST,
  port: env.GASLESS_RELAYER_PORT,
  metrics: env.METRICS_ENABLED,
});
