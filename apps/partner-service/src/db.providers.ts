import { Prisma, type PrismaClient, createPartnerServiceDb } from '@xchain/partner-service-db';
import { databaseProviders, token } from '@xchain/service-kit';

export const DB = token<PrismaClient>('DB');

export const dbProviders = (databaseUrl: string, poolSize: number) =>
  databaseProviders(DB, () => createPartnerServiceDb(databaseUrl, poolSize));

/**
 * An open database transaction, as repositories hand it to services: a service only passes it
 * back to repository methods (so several repositories write in one transaction), never queries it.
 */
export type Tx = Prisma.TransactionClient;

/** A unique index refused a row (a second record of something recorded once). */
export class UniqueViolation extends Error {}

/** Runs a write, turning PostgreSQL's unique violation into `UniqueViolation`. */
export async function uniqueOrThrow<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') throw new UniqueViolation(err.message);
    throw err;
  }
}
