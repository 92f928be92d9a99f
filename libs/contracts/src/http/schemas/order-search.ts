import { z } from 'zod';
import { defineRpc } from '../../rpc';
import { OrderStatusSchema } from './order-status';

/** An EVM transaction hash (any case), or a Solana transaction signature (base58, 64 bytes). */
export const TransactionOrdersPathParams = z.object({
  tx_hash: z
    .string()
    .regex(/^(0x[0-9a-fA-F]{64}|[1-9A-HJ-NP-Za-km-z]{64,90})$/)
    .meta({ description: 'An EVM transaction hash (any case) or a Solana transaction signature.' }),
});

export const TransactionOrdersResponse = z
  .object({ orders: z.array(OrderStatusSchema).meta({ description: 'Each order as its view (the GetOrder shape); empty when none.' }) })
  .meta({ id: 'TransactionOrdersResponse' });

/** The orders whose deposit, fulfilment or refund is a transaction (the order explorer's search); served by the quote-engine. */
export const FindOrdersByTransactionRpc = defineRpc(
  'order.v1.find_by_transaction',
  TransactionOrdersPathParams,
  TransactionOrdersResponse,
  {
    access: 'public',
  },
);
