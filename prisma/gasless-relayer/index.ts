import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';

export { Prisma, PrismaClient } from './generated/client';
export type { GaslessOrder, LaneTx, RelayTx } from './generated/client';

/** The gasless-relayer's Prisma client over node-postgres (Prisma 7 driver adapter). */
export function createGaslessRelayerDb(databaseUrl: string, poolSize = 10): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: poolSize, connectionTimeoutMillis: 5000 });
  return new PrismaClient({ adapter });
}
