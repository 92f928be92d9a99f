import { Inject, Injectable } from '@nestjs/common';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';

/** What open fills hold of the operator's inventory (`settlements.reserved`; settlement writes it). */
@Injectable()
export class InventoryRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  /** What open fills reserve of a destination token. */
  async reservedBy(chain: string, token: string): Promise<bigint> {
    const [row] = await this.db.$queryRaw<{ reserved: string | null }[]>`
      SELECT SUM(reserved)::text AS reserved FROM settlements WHERE dst_chain = ${chain} AND dst_token = ${token} AND reserved > 0`;
    return BigInt(row?.reserved ?? '0');
  }

  /** `reservedBy` of every destination token with a reservation, in one query: `chain:token` → amount. */
  async reservedAll(): Promise<Map<string, bigint>> {
    const rows = await this.db.$queryRaw<{ dst_chain: string; dst_token: string; reserved: string }[]>`
      SELECT dst_chain, dst_token, SUM(reserved)::text AS reserved FROM settlements WHERE reserved > 0 GROUP BY dst_chain, dst_token`;
    return new Map(rows.map((r) => [`${r.dst_chain}:${r.dst_token}`, BigInt(r.reserved)]));
  }
}
