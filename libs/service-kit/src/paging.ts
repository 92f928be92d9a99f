import { RpcError } from '@xchain/contracts';

/** Page sizes of every cursor-paged list: 50 unless asked, at most 200. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** A page size of 0 is an error; anything above the cap is served as the cap. */
export function pageSizeOf(requested: number | undefined): number {
  if (requested === undefined) return DEFAULT_PAGE_SIZE;
  if (requested < 1) throw RpcError.invalidArgument([{ field: 'page_size', description: 'must be at least 1' }], 'INVALID_PAGE_SIZE');
  return Math.min(requested, MAX_PAGE_SIZE);
}

/** The error for a cursor this API did not return (or returned for another list). */
export function invalidCursor(): RpcError {
  return RpcError.invalidArgument([{ field: 'cursor', description: 'is not a cursor this API returned' }], 'INVALID_CURSOR');
}

/**
 * A list position as clients see it: opaque, base64url of `[kind, ...parts]`. The kind names the
 * list and its version, so a cursor of one list is refused by another.
 */
export function encodePageCursor(kind: string, parts: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify([kind, ...parts]), 'utf8').toString('base64url');
}

/** The parts of a cursor of `kind` with `arity` parts; throws INVALID_CURSOR for anything else. Callers check the parts' types. */
export function decodePageCursor(kind: string, cursor: string, arity: number): unknown[] {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(v) || v.length !== arity + 1 || v[0] !== kind) throw invalidCursor();
  return v.slice(1);
}
