import type { OrderWire } from '@xchain/order-codec';
import type { PrismaClient } from '@xchain/quote-engine-db';
import type { QuoteLookup } from './solana-steps';

/** The stored quotes of the quote-engine's own database, read by hash: what a Solana step is checked against. */
export function prismaQuoteLookup(db: PrismaClient): QuoteLookup {
  return {
    async find(quoteHash) {
      const row = await db.quote.findUnique({
        where: { quoteHash },
        select: { srcChain: true, dstChain: true, order: true, retainedUntil: true },
      });
      return row
        ? { srcChain: row.srcChain, dstChain: row.dstChain, order: row.order as OrderWire, retainedUntil: row.retainedUntil }
        : undefined;
    },
  };
}
