import { type PrismaClient, createQuoteEngineDb } from '@xchain/quote-engine-db';
import { databaseProviders, token } from '@xchain/service-kit';
import type { QuoteEngineEnv } from './env';

export const DB = token<PrismaClient>('DB');

export const dbProviders = (env: Pick<QuoteEngineEnv, 'DATABASE_URL' | 'DATABASE_POOL_SIZE'>) =>
  databaseProviders(DB, () => createQuoteEngineDb(env.DATABASE_URL, env.DATABASE_POOL_SIZE));

/** A client of its own, for an operator command run outside the service (`seed.ts`). */
export function openDb(databaseUrl: string, poolSize: number): PrismaClient {
  return createQuoteEngineDb(databaseUrl, poolSize);
}
