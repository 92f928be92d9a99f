import type { OrderWire, Quote } from '@xchain/contracts';

/** A stored quote as the order view needs it. */
export interface StoredOrder {
  quoteHash: string;
  srcChain: string;
  dstChain: string;
  gasless: boolean;
  /** The wire order (every field a string). */
  order: OrderWire;
  /** The quote as it was returned. */
  response: Quote;
  createdAt: Date;
  expiresAt: Date;
  retainedUntil: Date;
}
