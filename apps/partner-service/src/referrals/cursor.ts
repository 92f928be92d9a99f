import { decodePageCursor, encodePageCursor, invalidCursor } from '@xchain/service-kit';

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageSizeOf } from '@xchain/service-kit';

/** Position after a group: (referrer, chain, token), the order groups are listed in. */
export interface GroupKey {
  referrer: string;
  chain: string;
  token: string;
}

export function encodeCursor(k: GroupKey): string {
  return encodePageCursor('g1', [k.referrer, k.chain, k.token]);
}

export function decodeCursor(cursor: string): GroupKey {
  const [referrer, chain, token] = decodePageCursor('g1', cursor, 3);
  const ok = (s: unknown): s is string => typeof s === 'string' && s.length <= 200 && !s.includes('\u0000');
  if (!ok(referrer) || !ok(chain) || !ok(token)) throw invalidCursor();
  return { referrer, chain, token };
}

/**
 * Position after an item of a list ordered by a numeric id, newest first (funding entries, webhook
 * deliveries): `[list, id]`, so a cursor of one list is refused by another.
 */
export function encodeIdCursor(list: 'e1' | 'd1', id: bigint): string {
  return encodePageCursor(list, [String(id)]);
}

export function decodeIdCursor(list: 'e1' | 'd1', cursor: string): bigint {
  const [id] = decodePageCursor(list, cursor, 1);
  if (typeof id !== 'string' || !/^[1-9][0-9]{0,18}$/.test(id)) throw invalidCursor();
  return BigInt(id);
}
