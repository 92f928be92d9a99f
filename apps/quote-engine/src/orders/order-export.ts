import { EXPORT_FEE_NAMES, type OrderStatus } from '@xchain/contracts';
import type { StoredOrder } from './order-records';

/** Orders per page of the export (one NATS reply each). */
export const EXPORT_PAGE_SIZE = 500;

const BPS = 10_000n;

/**
 * One order as a row of the partner export (PARTNER_ORDER_CSV_COLUMNS): amounts as base-unit
 * integers exactly as stored or seen on chain, empty where a step has not happened. A referrer's
 * payout is its bps of `amount_in`, rounded down (source token base units).
 */
export function exportRow(view: OrderStatus, stored: StoredOrder, address: (chain: string, bytes32: string) => string): string[] {
  const content = 'cross_chain' in stored.response ? stored.response.cross_chain : stored.response.same_chain_swap;
  const fees = content.fee_breakdown;
  const feeOf = (name: string) => {
    let total = 0n;
    let seen = false;
    for (const c of fees.components)
      if (c.name === name) {
        total += BigInt(c.native);
        seen = true;
      }
    return seen ? total.toString() : '0';
  };
  const amountIn = BigInt(view.amount_in);
  const payouts = stored.order.referrers.map(
    (r) => `${address(stored.srcChain, r.account)}:${r.bps}:${((amountIn * BigInt(r.bps)) / BPS).toString()}`,
  );
  return [
    view.quote_hash,
    view.quoted_at,
    view.status,
    view.src_chain,
    view.dst_chain,
    view.src_token,
    view.dst_token,
    view.amount_in,
    view.amount_out,
    view.min_amount_out,
    view.fulfillment?.amount ?? '',
    view.refund?.amount ?? '',
    stored.order.gas_drop,
    stored.order.gasless,
    stored.order.sponsor_fees,
    stored.order.sponsor_gas,
    ...EXPORT_FEE_NAMES.map(feeOf),
    fees.src_total_usd_micros,
    fees.dst_total_usd_micros,
    fees.src_gas_native,
    fees.dst_gas_native,
    fees.components.map((c) => `${c.name}:${c.side}:${c.usd_micros}:${c.native}`).join(';'),
    payouts.join(';'),
    view.deposit?.tx_hash ?? '',
    view.fulfillment?.tx_hash ?? '',
    view.refund?.tx_hash ?? '',
    view.refund?.reason ?? '',
  ];
}
