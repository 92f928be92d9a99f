import { Inject, Injectable } from '@nestjs/common';
import type { ApiKey, PrismaClient } from '@xchain/partner-service-db';
import { DB, type Tx } from '../db.providers';

export type { ApiKey } from '@xchain/partner-service-db';

export interface NewApiKey {
  id: string;
  partnerId: string;
  prefix: string;
  secretHash: string;
  name: string;
  tier: string;
  pointsPerMin: number;
}

/** Partners' API keys (only their hashes). */
@Injectable()
export class KeysRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.$transaction(fn);
  }

  /** Locks the partner's row until the transaction ends (one key creation at a time); its max_keys, or undefined without one. */
  async lockPartnerMaxKeys(tx: Tx, partnerId: string): Promise<number | undefined> {
    const [p] = await tx.$queryRaw<{ max_keys: number }[]>`SELECT max_keys FROM partners WHERE id = ${partnerId} FOR UPDATE`;
    return p?.max_keys;
  }

  /** Keys of the partner, disabled ones included. */
  count(tx: Tx, partnerId: string): Promise<number> {
    return tx.apiKey.count({ where: { partnerId } });
  }

  create(tx: Tx, data: NewApiKey): Promise<ApiKey> {
    return tx.apiKey.create({ data });
  }

  /** `partnerId` undefined: any partner's key. */
  find(keyId: string, partnerId?: string): Promise<ApiKey | null> {
    return this.db.apiKey.findFirst({ where: { id: keyId, ...(partnerId ? { partnerId } : {}) } });
  }

  byHash(secretHash: string): Promise<ApiKey | null> {
    return this.db.apiKey.findUnique({ where: { secretHash } });
  }

  ofPartner(partnerId: string): Promise<ApiKey[]> {
    return this.db.apiKey.findMany({ where: { partnerId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  disable(keyId: string, at: Date): Promise<ApiKey> {
    return this.db.apiKey.update({ where: { id: keyId }, data: { disabled: true, disabledAt: at } });
  }

  setTier(keyId: string, tier: string, pointsPerMin: number): Promise<ApiKey> {
    return this.db.apiKey.update({ where: { id: keyId }, data: { tier, pointsPerMin } });
  }
}
