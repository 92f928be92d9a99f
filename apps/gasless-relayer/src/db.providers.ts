import { type PrismaClient, createGaslessRelayerDb } from '@xchain/gasless-relayer-db';
import { databaseProviders, token } from '@xchain/service-kit';

export const DB = token<PrismaClient>('DB');

export const dbProviders = (databaseUrl: string, poolSize: number) =>
  databaseProviders(DB, () => createGaslessRelayerDb(databaseUrl, poolSize));
