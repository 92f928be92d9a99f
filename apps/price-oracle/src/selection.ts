import type { Price } from '@xchain/contracts';

/** A value stamped further ahead than this is clock trouble at the source, not a fresh price. */
export const MAX_FUTURE_SKEW_SECS = 60;

/** Fresh: at most `maxAgeSecs` old (and not from the future beyond clock skew). */
export function isFresh(price: Price, nowSecs: number, maxAgeSecs: number): boolean {
  const age = nowSecs - price.publish_time;
  return age <= maxAgeSecs && age >= -MAX_FUTURE_SKEW_SECS;
}

/**
 * For each price id, the value of the first source, in priority order, whose value is fresh.
 * A stale value of a preferred source never hides a fresh one further down the list.
 */
export function selectPrices(byPriority: readonly (readonly Price[])[], nowSecs: number, maxAgeSecs: number): Map<string, Price> {
  const chosen = new Map<string, Price>();
  for (const prices of byPriority) {
    for (const p of prices) {
      if (!chosen.has(p.price_id) && isFresh(p, nowSecs, maxAgeSecs)) chosen.set(p.price_id, p);
    }
  }
  return chosen;
}

/**
 * Whether `next` belongs in the bucket after `last`. Never an older value (a fallback source must
 * not move a price back in time); at the same instant only a different value. Publish times are
 * the sources' own, so a value that stopped changing is never made to look fresh.
 */
export function supersedes(next: Price, last: Price | undefined): boolean {
  if (!last || next.publish_time > last.publish_time) return true;
  if (next.publish_time < last.publish_time) return false;
  return next.price !== last.price || next.expo !== last.expo || next.conf !== last.conf || next.source !== last.source;
}
