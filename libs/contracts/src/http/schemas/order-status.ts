import { z } from 'zod';
import { defineRpc } from '../../rpc';
import { AmountString, ChainName, Rfc3339, Uint32Input, Uint64String } from '../../wire';
import { FeeBreakdownSchema, FeeComponentSchema } from '../../quoting/quote-response';
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
  destination_call: z
    .object({
      target: z.string(),
      status: z.enum(['executed', 'fell_back']).meta({
        description:
          '`executed`: the target got the tokens and its call succeeded; `fell_back`: the call reverted and the tokens went to the recipient.',
      }),
    })
    .optional()
    .meta({ description: 'The order carried a destination call: whether it ran.' }),
}).meta({ id: 'FillStep' });

const RefundStep = ChainStep.extend({
  token: z.string().meta({ description: 'The source token returned.' }),
  amount: AmountString.optional().meta({ description: 'Source base units returned to `refund_address`.' }),
  reason: RefundReason,
}).meta({ id: 'RefundStep' });

/** Where a settled order's money went (issue 39 §6). */
export const OrderAccountingSchema = z
  .object({
    amount_in: AmountString.meta({ description: "What the user parted with, source base units (the quote's `amount_in`)." }),
    received: AmountString.meta({
      description: 'Destination base units the fill delivered to the recipient (the gas drop aside); `0` on a refund.',
    }),
    refunded: AmountString.meta({ description: 'Source base units the refund returned; `0` on a fill.' }),
    fees: z.array(FeeComponentSchema.pick({ name: true, side: true }).extend({ charged: AmountString })).meta({
      description:
        "The stated fees the user bore, each as its fee component's `charged`: every fee on a fill; on a refund only `sponsor_gas` (the relay gas of a gasless order, which the deposit never held).",
    }),
    src_fees: AmountString.meta({ description: 'Sum of the `src` fees, source base units.' }),
    dst_fees: AmountString.meta({ description: 'Sum of the `dst` fees, destination base units.' }),
    route_in: AmountString.meta({ description: "The quote's `route_in` on a fill; `0` on a refund." }),
    route_out: AmountString.meta({ description: "The quote's `route_out` on a fill; `0` on a refund." }),
    reconciled: z.boolean().meta({
      description:
        'True when, to the unit, `amount_in` − `refunded` − `src_fees` = `route_in` and `route_out` − `dst_fees` = `received`. On a route with no swap between tokens of equal units (USDC to USDC) `route_in` = `route_out`, so `amount_in` − `received` − `refunded` = `src_fees` + `dst_fees`.',
    }),
  })
  .meta({ id: 'OrderAccounting' });
export type OrderAccounting = z.infer<typeof OrderAccountingSchema>;

/** Why a gasless order is `failed` (D18). */
export const OrderFailureSchema = z
  .object({
    reason: z.string().meta({
      description:
        "The relay's stable reason code (UPPER_SNAKE): `SIMULATION_REVERTED` (the relayer's simulation at the transaction's nonce reverts: nothing was sent, no gas spent; e.g. the wallet moved its balance or allowance away after signing), `TX_REVERTED` (the relay transaction reverted on chain), `DEADLINE_PASSED`, `SPONSOR_BALANCE_INSUFFICIENT`, and the other codes of `gasless.error`.",
    }),
    message: z.string().meta({ description: "The relayer's error as `gasless.error` shows it: the reason code, then the detail." }),
    at: Rfc3339.meta({ description: 'When the relay failed.' }),
  })
  .meta({ id: 'OrderFailure' });
export type OrderFailure = z.infer<typeof OrderFailureSchema>;

export const GetOrderPathParams = z.object({ quote_hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/) });

/** The statuses of an order view (D12, D16, D18). */
export const OrderStatusValue = z.enum(['quoted', 'deposited', 'fulfilled', 'refunded', 'expired', 'failed']);
export type OrderStatusValue = z.infer<typeof OrderStatusValue>;

export const OrderStatusSchema = z
  .object({
    quote_hash: z.string(),
    status: OrderStatusValue.meta({
      description:
        '`quoted` → `deposited` → `fulfilled` | `refunded`; `expired` for a quote never deposited once `retained_until` passed (D16, replacing D12\'s "expiry passed"); `failed` for a gasless order whose relay failed for good before anything was deposited (D18: `failure` says why; the quote cannot be submitted again, ask for a new one). Past `expires_at` a quote stays `quoted`: a deposit is still honoured at the quoted terms until `retained_until`.',
    }),
    terminal: z
      .boolean()
      .meta({ description: 'True when the status can no longer change: `fulfilled`, `refunded`, `expired` or `failed`.' }),
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
    fulfill_eta_secs: Uint64String.optional().meta({
      description:
        "The quote's `fulfill_eta_secs`: the seconds from deposit to fulfilment promised when it was quoted (absent when the quote had none).",
    }),
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
    failure: OrderFailureSchema.optional().meta({ description: 'On `failed` only: why the order failed, and when (D18).' }),
    gasless: GaslessOrderViewSchema.optional().meta({ description: 'The relay result of a gasless order that was submitted.' }),
    fee_breakdown: FeeBreakdownSchema.optional().meta({ description: "The quote's fee breakdown, as stated when it was quoted." }),
    accounting: OrderAccountingSchema.optional().meta({
      description:
        'Once fulfilled or refunded (with the amount the chain showed): where the money went. Absent for quotes stored before fees stated `charged`.',
    }),
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
