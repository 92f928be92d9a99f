import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';

export { Prisma, PrismaClient } from './generated/client';
export type { Chain, RebalanceMove, Settlement, StrayDeposit, Token } from './generated/client';

/** The quote-engine's Prisma client over node-postgres (Prisma 7 driver adapter). */
export function createQuoteEngineDb(databaseUrl: string, poolSize = 10): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: poolSize, connectionTimeoutMillis: 5000 });
  return new PrismaClient({ adapter });
}
