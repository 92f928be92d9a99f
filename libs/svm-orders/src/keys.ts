import { base58Decode } from '@xchain/order-codec';

const BASE58_KEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** A Solana key as typed: base58 of exactly 32 bytes. */
export function isSvmKey(text: string): boolean {
  if (!BASE58_KEY.test(text)) return false;
  try {
    return base58Decode(text).length === 32;
  } catch {
    return false;
  }
}

/**
 * A comma-separated list of Solana keys (`SOLANA_FILLER_ACCOUNTS`), in order, without repeats;
 * a malformed one is an error naming it, never silently dropped.
 */
export function parseSvmKeyList(text: string): string[] {
  const keys = text
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  for (const k of keys) if (!isSvmKey(k)) throw new Error(`${k} is not a base58 Solana key`);
  return [...new Set(keys)];
}
