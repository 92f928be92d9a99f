import { RpcError } from '@xchain/contracts';

/** Position after a group: (referrer, chain, token), the order groups are listed in. */
export interface GroupKey {
  referrer: string;
  chain: string;
  token: string;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** Opaque to clients: base64url of a versioned JSON tuple. */
export function encodeCursor(k: GroupKey): string {
  return Buffer.from(JSON.stringify(['g1', k.referrer, k.chain, k.token]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): GroupKey {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(v) &&
      v.length === 4 &&
      v[0] === 'g1' &&
      v.slice(1).every((s) => typeof s === 'string' && s.length <= 200 && !s.includes('\u0000'))
    ) {
      return { referrer: v[1] as string, chain: v[2] as string, token: v[3] as string };
    }
  } catch {
    // fall through to the error below
  }
  throw RpcError.invalidArgument([{ field: 'cursor', description: 'is not a cursor this API returned' }], 'INVALID_CURSOR');
}

/**
 * Position after an item of a list ordered by a numeric id, newest first (funding entries, webhook
 * deliveries): base64url of `[list, id]`, so a cursor of one list is refused by another.
 */
export function encodeIdCursor(list: 'e1' | 'd1', id: bigint): string {
  return Buffer.from(JSON.stringify([list, String(id)]), 'utf8').toString('base64url');
}

export function decodeIdCursor(list: 'e1' | 'd1', cursor: string): bigint {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && v[0] === list && typeof v[1] === 'string' && /^[1-9][0-9]{0,18}$/.test(v[1]))
      return BigInt(v[1]);
  } catch {
    // fall through to the error below
  }
  throw RpcError.invalidArgument([{ field: 'cursor', description: 'is not a cursor this API returned' }], 'INVALID_CURSOR');
}

/** A page size of 0 is an error; anything above the cap is served as the cap. */
export function pageSizeOf(requested: number | undefined): number {
  if (requested === undefined) return DEFAULT_PAGE_SIZE;
  if (requested < 1) throw RpcError.invalidArgument([{ field: 'page_size', description: 'must be at least 1' }], 'INVALID_PAGE_SIZE');
  return Math.min(requested, MAX_PAGE_SIZE);
}
