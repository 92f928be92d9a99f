import { createQuoteEngineDb } from '@xchain/quote-engine-db';
import { databaseProviders } from '@xchain/service-kit';
import { env } from './env';

export const DB = Symbol('DB');

export const dbProviders = databaseProviders(DB, () => createQuoteEngineDb(env.DATABASE_URL, env.DATABASE_POOL_SIZE));
