import type { RefundReason } from './settlement.repository';

export interface ScreenInput {
  now: Date;
  /** The last moment a deposit is honoured (D16); the destination router refuses a fill after it. */
  retainedUntil: Date;
  /** A fill is only started this long before retention ends, so it lands before the router's deadline. */
  marginSecs: number;
  /** What the source router (or vault) must have received for this order, base units. */
  expectedDeposit: bigint;
  /** What the chain watcher saw deposited; null on events recorded before amounts were carried. */
  deposited: bigint | null;
}

/**
 * The checks a deposited order must pass before inventory is even looked at (D15): a deposit that
 * does not match the stored order, or one too close to the end of retention to fill safely, is
 * refunded. Undefined: go on to the inventory check.
 */
export function screen(i: ScreenInput): { reason: RefundReason; error: string } | undefined {
  if (i.deposited !== null && i.deposited !== i.expectedDeposit) {
    return { reason: 'MISMATCH', error: `deposited ${i.deposited}, the order needs ${i.expectedDeposit}` };
  }
  if (i.now.getTime() + i.marginSecs * 1000 > i.retainedUntil.getTime()) {
    return { reason: 'RETENTION', error: `deposited too close to the end of retention (${i.retainedUntil.toISOString()}) to fill safely` };
  }
  return undefined;
}
