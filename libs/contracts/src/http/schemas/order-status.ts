import { z } from 'zod';
import { defineRpc } from '../../rpc';
import { AmountString, ChainName, Rfc3339, Uint32Input, Uint64String } from '../../wire';
import { GaslessOrderViewSchema } from './gasless';

const ChainStep = z
  .object({
    chain: ChainName,
    tx_hash: z.string(),
    block_number: Uint64String,
    at: Rfc3339.meta({ description: 'Block time.' }),
  })
  .meta({ id: 'OrderStep', description: "A step seen on chain, counted once it is the chain's confirmation depth deep." });

/** Why an order is refunded (D15). */
export const RefundReason = z.enum(['INSUFFICIENT_INVENTORY', 'DEPOSIT_MISMATCH', 'EXPIRED_UNFILLED', 'FILL_FAILED', 'OPERATOR']).meta({
  description:
    '`INSUFFICIENT_INVENTORY`: the operator could not cover `amount_out`; `DEPOSIT_MISMATCH`: the deposit did not match the order; `EXPIRED_UNFILLED`: deposited too close to the end of retention to fill safely; `FILL_FAILED`: the fill failed for good; `OPERATOR`: refunded by the operator by hand.',
});
export type RefundReason = z.infer<typeof RefundReason>;

const FillStep = ChainStep.extend({
  amount: AmountString.optional().meta({ description: 'Destination base units delivered to the recipient (the gas drop aside).' }),
}).meta({ id: 'FillStep' });

const RefundStep = ChainStep.extend({
  token: z.string().meta({ description: 'The source token returned.' }),
  amount: AmountString.optional().meta({ description: 'Source base units returned to `refund_address`.' }),
  reason: RefundReason,
}).meta({ id: 'RefundStep' });

export const GetOrderPathParams = z.object({ quote_hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/) });

/** The statuses of an order view (D12, D16). */
export const OrderStatusValue = z.enum(['quoted', 'deposited', 'fulfilled', 'refunded', 'expired']);
export type OrderStatusValue = z.infer<typeof OrderStatusValue>;

export const OrderStatusSchema = z
  .object({
    quote_hash: z.string(),
    status: OrderStatusValue.meta({
      description:
        '`quoted` → `deposited` → `fulfilled` | `refunded`; `expired` for a quote never deposited once `retained_until` passed (D16, replacing D12\'s "expiry passed"). Past `expires_at` a quote stays `quoted`: a deposit is still honoured at the quoted terms until `retained_until`.',
    }),
    terminal: z.boolean().meta({ description: 'True when the status can no longer change: `fulfilled`, `refunded` or `expired`.' }),
    src_chain: ChainName,
    dst_chain: ChainName,
    src_token: z.string(),
    dst_token: z.string(),
    amount_in: AmountString,
    amount_out: AmountString,
    min_amount_out: AmountString,
    quoted_at: Rfc3339,
    expires_at: Rfc3339.meta({
      description: '30 minutes after issue. Informational: the price is old, but a deposit is still honoured until `retained_until`.',
    }),
    retained_until: Rfc3339.meta({ description: 'The last moment a deposit is honoured at the quoted terms.' }),
    deposit: ChainStep.optional().meta({ description: 'The deposit seen on the source chain.' }),
    fulfillment: FillStep.optional().meta({ description: 'The fulfilment on the destination chain.' }),
    refund: RefundStep.optional().meta({ description: 'The refund on the source chain, with why.' }),
    settlement: z
      .object({ decision: z.enum(['fill', 'refund']), reason: RefundReason.optional() })
      .optional()
      .meta({
        description:
          'Once the deposit is at depth: what the operator decided (D15). A refund decided shows here, with its reason, before the refund lands.',
      }),
    gasless: GaslessOrderViewSchema.optional().meta({ description: 'The relay result of a gasless order that was submitted.' }),
  })
  .meta({
    id: 'OrderStatus',
    description:
      'The order view (D12). Past `retained_until` the view is still served for a grace period (`QUOTE_GRACE_SECS`, 24 h by default), so the terminal `expired` can be read and pushed, and only then is NOT_FOUND (D12 said NOT_FOUND as soon as retention ends).',
  });
export type OrderStatus = z.infer<typeof OrderStatusSchema>;

/** The order view (D12), served by the quote-engine. */
export const GetOrderRpc = defineRpc('order.v1.get', GetOrderPathParams, OrderStatusSchema, { access: 'public' });

/** Filters and page of ListPartnerOrders. */
export const PartnerOrdersQuery = z.object({
  chain: ChainName.optional().meta({ description: 'Only orders whose source or destination is this chain.' }),
  status: OrderStatusValue.optional().meta({ description: 'Only orders in this status (as the order view states it now).' }),
  cursor: z.string().optional().meta({ description: 'Opaque cursor from a previous page.' }),
  page_size: Uint32Input.optional().meta({ description: 'Orders per page (default 50, at most 200).' }),
});

export const PartnerOrdersResponse = z
  .object({ orders: z.array(OrderStatusSchema), next_cursor: z.string() })
  .meta({ id: 'ListPartnerOrdersResponse' });

/** The orders quoted with a partner's API keys, newest first, each as its order view; served by the quote-engine. */
export const ListPartnerOrdersRpc = defineRpc('order.v1.list_partner_orders', PartnerOrdersQuery, PartnerOrdersResponse, {
  access: 'partner',
});
