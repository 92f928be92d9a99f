import type { OrderWire } from '@xchain/order-codec';
import type { QuoteRepository } from '../quoting/quote.repository';
import type { QuoteLookup } from './solana-steps';

/** The stored quotes of the quote-engine's own database, read by hash: what a Solana step is checked against. */
export function storedQuoteLookup(quotes: Pick<QuoteRepository, 'find'>): QuoteLookup {
  return {
    async find(quoteHash) {
      const row = await quotes.find(quoteHash.toLowerCase());
      return row
        ? { srcChain: row.srcChain, dstChain: row.dstChain, order: row.order as OrderWire, retainedUntil: row.retainedUntil }
        : undefined;
    },
  };
}
