import { z } from 'zod';
import { ChainName, Rfc3339, Uint64String } from '../wire';

/**
 * Order lifecycle events, published by the chain watcher and consumed (durably, through the
 * JetStream stream below) by the quote-engine for order status and fulfilment estimates.
 */
export const ORDER_EVENTS_STREAM = 'ORDER_EVENTS_V1';

export const OrderEventType = z.enum(['deposited', 'fulfilled', 'refunded']);
export type OrderEventType = z.infer<typeof OrderEventType>;

export const OrderEventSchema = z.object({
  type: OrderEventType,
  quote_hash: z.string().regex(/^0x[0-9a-f]{64}$/),
  /** Chain of the transaction: the source for deposits and refunds, the destination for fulfilments. */
  chain: ChainName,
  tx_hash: z.string().min(1),
  /** Block of the transaction (absent on events from before block numbers were carried). */
  block_number: Uint64String.optional(),
  /** Block time of the transaction. */
  occurred_at: Rfc3339,
  /** Place of the log (EVM) or instruction (Solana) in its transaction: with chain and tx, what makes a step unique. */
  log_index: z.number().int().nonnegative().optional(),
  /** Hash of the block (EVM) or slot's blockhash (Solana) the step was read in. */
  block_hash: z.string().optional(),
  /** Amount moved, base units of the step's token (deposited, delivered or refunded). */
  amount: z
    .string()
    .regex(/^(0|[1-9][0-9]*)$/)
    .optional(),
  /**
   * True when a reorg deeper than the confirmation depth dropped this step (same chain, tx and log
   * index as the step it withdraws): the step did not happen after all.
   */
  removed: z.boolean().optional(),
});
export type OrderEvent = z.infer<typeof OrderEventSchema>;

/** Subject per event type: `orders.v1.deposited`, `orders.v1.fulfilled`, `orders.v1.refunded`. */
export function orderEventSubject(type: OrderEventType): string {
  return `orders.v1.${type}`;
}
export const ORDER_EVENT_SUBJECTS = 'orders.v1.*';
