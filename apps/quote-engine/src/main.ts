import './instrument';
import 'reflect-metadata';
import { startService } from '@xchain/service-kit';
import { AppModule } from './app.module';
import { env } from './env';

void startService({ service: 'quote-engine', module: AppModule, host: env.HOST, port: env.QUOTE_ENGINE_PORT, metrics: env.METRICS_ENABLED });
