import './instrument';
import 'reflect-metadata';
import { startService } from '@xchain/service-kit';
import { QuoteEngineModule } from './app.module';
import { loadQuoteEngineEnv } from './env';

const env = loadQuoteEngineEnv();

void startService({
  service: 'quote-engine',
  module: QuoteEngineModule.forEnv(env),
  host: env.HOST,
  port: env.QUOTE_ENGINE_PORT,
  metrics: env.METRICS_ENABLED,
});
