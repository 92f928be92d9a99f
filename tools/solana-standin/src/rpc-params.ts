import { PublicKey } from '@solana/web3.js';
import { base58Decode } from '@xchain/order-codec';
import { type Commitment, RpcFailure } from './ledger';

/** Reading JSON-RPC params the way a validator does: wrong ones are -32602 "Invalid params" or "Invalid param". */

export const invalidParams = (why: string) => new RpcFailure(-32602, `Invalid params: ${why}`);
export const invalidParam = (why: string) => new RpcFailure(-32602, `Invalid param: ${why}`);

export function param<T = unknown>(params: unknown[], i: number): T | undefined {
  return params[i] as T | undefined;
}

export function config(params: unknown[], i: number): Record<string, unknown> {
  const c = params[i];
  if (c === undefined || c === null) return {};
  if (typeof c !== 'object' || Array.isArray(c))
    throw invalidParams(`invalid type: ${Array.isArray(c) ? 'sequence' : typeof c}, expected a config object`);
  return c as Record<string, unknown>;
}

export function text(params: unknown[], i: number, what: string): string {
  const v = params[i];
  if (typeof v !== 'string')
    throw invalidParams(v === undefined ? `missing ${what}` : `invalid type: ${typeof v}, expected a string (${what})`);
  return v;
}

export function pubkey(params: unknown[], i: number): PublicKey {
  const v = text(params, i, 'a base-58 address');
  try {
    const bytes = base58Decode(v);
    if (bytes.length !== 32) throw new Error('WrongSize');
    return new PublicKey(bytes);
  } catch (err) {
    throw invalidParam(err instanceof Error && err.message === 'WrongSize' ? 'WrongSize' : 'Invalid');
  }
}

export function whole(value: unknown, what: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw invalidParams(`${what} must be a non-negative integer`);
  return value;
}

const COMMITMENTS: Record<string, Commitment> = {
  processed: 'processed',
  confirmed: 'confirmed',
  finalized: 'finalized',
  // Names older clients still send.
  recent: 'processed',
  single: 'confirmed',
  singleGossip: 'confirmed',
  root: 'finalized',
  max: 'finalized',
};

export function commitment(c: Record<string, unknown>, key = 'commitment', atLeastConfirmed = false): Commitment {
  const raw = c[key];
  if (raw === undefined) return 'finalized';
  const value = typeof raw === 'string' ? COMMITMENTS[raw] : undefined;
  if (!value) throw invalidParams(`unknown variant \`${String(raw)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\``);
  if (atLeastConfirmed && value === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  return value;
}

/** A transaction or message in the request's encoding (base58 by default, as on a validator). */
export function wireBytes(value: string, encoding: unknown): Uint8Array {
  if (encoding === undefined || encoding === 'base58') {
    try {
      return base58Decode(value);
    } catch {
      throw invalidParams('invalid base58 encoding');
    }
  }
  if (encoding === 'base64') return Buffer.from(value, 'base64');
  throw invalidParams(`unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`);
}
