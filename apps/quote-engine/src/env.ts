import { BaseEnv, loadEnvOrExit, port } from '@xchain/service-kit';
import { z } from 'zod';

export const QuoteEngineEnv = BaseEnv.extend({
  QUOTE_ENGINE_PORT: port(8082),
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/quote_engine'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
});
export type QuoteEngineEnv = z.output<typeof QuoteEngineEnv>;

export const env: QuoteEngineEnv = loadEnvOrExit('quote-engine', QuoteEngineEnv);
