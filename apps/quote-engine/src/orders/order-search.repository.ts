import { Inject, Injectable } from '@nestjs/common';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';

/** At most this many orders per transaction (a batch relay or fill could carry several). */
const MAX_ORDERS_PER_TX = 20;

/** Which orders a chain transaction is a step of, read from the recorded order events. */
@Injectable()
export class OrderSearchRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  /** Quote hashes whose deposit, fulfilment or refund event is `txHash` (EVM hashes in any case, Solana signatures exactly). */
  async quoteHashesOfTransaction(txHash: string): Promise<string[]> {
    const rows = await this.db.orderEvent.findMany({
      where: {
        type: { in: ['deposited', 'fulfilled', 'refunded'] },
        txHash: txHash.startsWith('0x') ? { equals: txHash, mode: 'insensitive' } : txHash,
      },
      select: { quoteHash: true },
      distinct: ['quoteHash'],
      orderBy: { quoteHash: 'asc' },
      take: MAX_ORDERS_PER_TX,
    });
    return rows.map((r) => r.quoteHash);
  }
}
