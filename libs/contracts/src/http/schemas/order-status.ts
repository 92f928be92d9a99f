import { z } from 'zod';
import { Rfc3339 } from '../../wire';
import { GaslessOrderResultSchema } from './gasless';

const ChainTx = z.object({ chain: z.string(), tx_hash: z.string(), at: Rfc3339 });

export const GetOrderPathParams = z.object({ quote_hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/) });

export const OrderStatusSchema = z
  .object({
    quote_hash: z.string(),
    status: z.enum(['quoted', 'deposited', 'fulfilled', 'refunded']).meta({ description: 'The furthest lifecycle step reached.' }),
    quoted_at: Rfc3339,
    deposit: ChainTx.optional().meta({ description: 'The deposit seen on the source chain.' }),
    fulfillment: ChainTx.optional().meta({ description: 'The fulfilment on the destination chain.' }),
    refund: ChainTx.optional().meta({ description: 'The refund on the source chain.' }),
    gasless: GaslessOrderResultSchema.optional().meta({ description: 'The relay result of a gasless order.' }),
  })
  .meta({ id: 'OrderStatus' });
