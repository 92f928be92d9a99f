import type { OrderView } from '../shared/api';

/** One step of an order's timeline: done (with what the chain showed) or still to come. */
export interface TimelineStep {
  key: 'quoted' | 'relayed' | 'deposited' | 'filled' | 'refunded' | 'expired' | 'failed';
  label: string;
  done: boolean;
  at?: string;
  chain?: string;
  tx?: string;
  /** A word or two more: the relay's status, a refund's reason. */
  detail?: string;
}

/** Why an order was refunded, in words (the API's `RefundReason`). */
export const REFUND_REASONS: Readonly<Record<string, string>> = {
  INSUFFICIENT_INVENTORY: 'The operator did not have enough of the destination token to fill the order, so the deposit was returned.',
  DEPOSIT_MISMATCH: 'The deposit did not match the quoted order (token, amount or terms), so it was returned.',
  EXPIRED_UNFILLED: 'The deposit arrived too close to the end of the quote’s retention to be filled safely, so it was returned.',
  FILL_FAILED: 'The fill on the destination chain failed for good, so the deposit was returned.',
  OPERATOR: 'The operator returned the deposit by hand.',
};

export function refundReasonText(reason: string): string {
  return REFUND_REASONS[reason] ?? `Refunded (${reason}).`;
}

/**
 * The steps of an order in order: quoted, relayed (gasless orders), deposited, then how it ended —
 * filled, refunded, expired or failed. The ending not yet known shows as "filled" to come.
 */
export function timelineOf(order: OrderView): TimelineStep[] {
  const steps: TimelineStep[] = [{ key: 'quoted', label: 'Quoted', done: true, at: order.quoted_at, chain: order.src_chain }];
  if (order.gasless) {
    const g = order.gasless;
    steps.push({
      key: 'relayed',
      label: 'Relayed (gasless)',
      done: g.status === 'confirmed',
      chain: order.src_chain,
      ...(g.tx_hash ? { tx: g.tx_hash } : {}),
      detail: g.status,
    });
  }
  if (order.status === 'failed') {
    steps.push({
      key: 'failed',
      label: 'Failed',
      done: true,
      ...(order.failure ? { at: order.failure.at, detail: order.failure.reason } : {}),
    });
    return steps;
  }
  if (order.status === 'expired') {
    steps.push({ key: 'expired', label: 'Expired', done: true, at: order.retained_until, detail: 'never deposited' });
    return steps;
  }
  const d = order.deposit;
  steps.push(
    d
      ? { key: 'deposited', label: 'Deposited', done: true, at: d.at, chain: d.chain, tx: d.tx_hash }
      : { key: 'deposited', label: 'Deposited', done: false, chain: order.src_chain },
  );
  const r = order.refund;
  if (r) {
    steps.push({ key: 'refunded', label: 'Refunded', done: true, at: r.at, chain: r.chain, tx: r.tx_hash, detail: r.reason });
    return steps;
  }
  const f = order.fulfillment;
  steps.push(
    f
      ? { key: 'filled', label: 'Filled', done: true, at: f.at, chain: f.chain, tx: f.tx_hash }
      : { key: 'filled', label: 'Filled', done: false, chain: order.dst_chain },
  );
  return steps;
}

/** Seconds from deposit to fill (or refund), when both are known. */
export function secondsTaken(order: OrderView): number | undefined {
  const end = order.fulfillment?.at ?? order.refund?.at;
  if (!order.deposit || !end) return undefined;
  const secs = (Date.parse(end) - Date.parse(order.deposit.at)) / 1000;
  return Number.isFinite(secs) && secs >= 0 ? secs : undefined;
}
