import type { OrderStatus } from '@xchain/contracts';

/**
 * The one rule of an order's status, which the view, the stored `orders.status` (the list filter's
 * column) and the list filters all follow:
 * - what the chains show comes first, the latest step winning: `refunded`, then `fulfilled`, then
 *   `deposited` (a deposit seen is never `failed`);
 * - then a gasless relay that failed for good (D18): `failed`;
 * - then `quoted`, which the view calls `expired` once the order's retention ended (D16: expires_at
 *   only dates the price; a deposit is honoured until retained_until).
 * The database keeps the first two parts (`storedStatus`, `STORED_STATUS_SQL`); the third depends
 * on the time of the read, so it is applied when reading (`viewStatus`, `statusFilter`).
 */
export type StoredStatus = 'refunded' | 'fulfilled' | 'deposited' | 'failed' | 'quoted';

/** The steps that decide a status, latest first. */
export const STEPS_BY_PRECEDENCE = ['refunded', 'fulfilled', 'deposited'] as const;

export function storedStatus(steps: ReadonlySet<string>, failed: boolean): StoredStatus {
  for (const step of STEPS_BY_PRECEDENCE) if (steps.has(step)) return step;
  return failed ? 'failed' : 'quoted';
}

export function viewStatus(stored: StoredStatus, retainedUntil: Date, nowMs: number): OrderStatus['status'] {
  return stored === 'quoted' && nowMs > retainedUntil.getTime() ? 'expired' : stored;
}

/**
 * `storedStatus` in SQL, for an `UPDATE orders … WHERE quote_hash = $1`: the order's recorded
 * steps (`order_events`), else its recorded relay failure (`failed_at`). `$1` is the order's hash.
 */
export const STORED_STATUS_SQL = `COALESCE(
  (SELECT CASE ${STEPS_BY_PRECEDENCE.map((s) => `WHEN bool_or(type = '${s}') THEN '${s}'`).join(' ')} END
   FROM order_events WHERE quote_hash = $1 HAVING count(*) > 0),
  CASE WHEN failed_at IS NULL THEN 'quoted' ELSE 'failed' END)`;

/**
 * A status filter of the lists as conditions on the stored columns: the stored status, and for
 * `quoted` and `expired` (both stored as `quoted`) whether retention ended before `now`.
 */
export function statusFilter(
  value: OrderStatus['status'],
  now: Date,
): { stored: StoredStatus; retained?: { from: Date } | { before: Date } } {
  if (value === 'quoted') return { stored: 'quoted', retained: { from: now } };
  if (value === 'expired') return { stored: 'quoted', retained: { before: now } };
  return { stored: value };
}
