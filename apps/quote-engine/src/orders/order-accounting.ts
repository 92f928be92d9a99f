import type { FeeBreakdown, OrderAccounting } from '@xchain/contracts';

/**
 * Where an order's money went, from the quote's stated fees and what the chains showed (issue 39
 * §6). On a fill the user bore every fee with a `charged` amount; on a refund only the relay gas of
 * a gasless order (the router returns the deposit, which never held it). Undefined until the order
 * is fulfilled or refunded with its amount seen, and for quotes stored before `charged` was stated.
 */
export function orderAccounting(
  amountIn: string,
  fees: FeeBreakdown | undefined,
  outcome: { kind: 'fulfilled'; received: string } | { kind: 'refunded'; refunded: string },
): OrderAccounting | undefined {
  if (fees?.route_in === undefined || fees.route_out === undefined || fees.components.some((c) => c.charged === undefined))
    return undefined;
  const filled = outcome.kind === 'fulfilled';
  const borne = fees.components
    .filter((c) => BigInt(c.charged!) > 0n && (filled || c.name === 'sponsor_gas'))
    .map((c) => ({ name: c.name, side: c.side, charged: c.charged! }));
  const sum = (side: 'src' | 'dst') => borne.filter((c) => c.side === side).reduce((a, c) => a + BigInt(c.charged), 0n);
  const srcFees = sum('src');
  const dstFees = sum('dst');
  const received = filled ? BigInt(outcome.received) : 0n;
  const refunded = filled ? 0n : BigInt(outcome.refunded);
  const routeIn = filled ? BigInt(fees.route_in) : 0n;
  const routeOut = filled ? BigInt(fees.route_out) : 0n;
  const reconciled = BigInt(amountIn) - refunded - srcFees === routeIn && routeOut - dstFees === received;
  return {
    amount_in: amountIn,
    received: received.toString(),
    refunded: refunded.toString(),
    fees: borne,
    src_fees: srcFees.toString(),
    dst_fees: dstFees.toString(),
    route_in: routeIn.toString(),
    route_out: routeOut.toString(),
    reconciled,
  };
}
