import { createPartnerServiceDb } from '@xchain/partner-service-db';
import { databaseProviders } from '@xchain/service-kit';

export const DB = Symbol('DB');

export const dbProviders = (databaseUrl: string, poolSize: number) => databaseProviders(DB, () => createPartnerServiceDb(databaseUrl, poolSize));
