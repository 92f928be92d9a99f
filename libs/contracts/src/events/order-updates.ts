import { z } from 'zod';
import { OrderStatusSchema } from '../http/schemas/order-status';
import { Rfc3339 } from '../wire';

/**
 * Order views pushed on change (D13). The quote-engine publishes the whole view of an order each
 * time it changes (a step read from a chain, a step withdrawn by a reorg, a relay status), on a
 * JetStream stream so a consumer that was down (partner webhooks) misses none; the gateway's
 * server-sent events read the same subjects as plain NATS subscribers.
 */
export const ORDER_UPDATES_STREAM = 'ORDER_UPDATES_V1';
export const ORDER_UPDATE_SUBJECTS = 'orders.v1.updated.*';
export const orderUpdateSubject = (quoteHash: string): string => `orders.v1.updated.${quoteHash.toLowerCase()}`;

export const OrderUpdateSchema = z.object({
  /** Unique per order and version (`<quote_hash>:<version>`): the deduplication key of webhooks and SSE. */
  event_id: z.string().min(1),
  quote_hash: z.string().regex(/^0x[0-9a-f]{64}$/),
  /** 1 for the first view pushed, +1 for each change after it. */
  version: z.number().int().positive(),
  /** The partner whose API key quoted the order (webhooks go to it); absent for anonymous quotes. */
  partner_id: z.string().optional(),
  occurred_at: Rfc3339,
  order: OrderStatusSchema,
});
export type OrderUpdate = z.infer<typeof OrderUpdateSchema>;

/** Durable consumers of the order updates stream, by the service that runs each. */
export const ORDER_UPDATE_CONSUMERS = { webhooks: 'partner-service-webhooks' } as const;
