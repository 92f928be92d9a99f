import { type Hex, isHex } from 'viem';

/** Comma-separated 32-byte hex private keys. The error never repeats a key. */
export function parseKeys(text: string): Hex[] {
  const keys = text
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  keys.forEach((k, i) => {
    if (!isHex(k) || k.length !== 66) throw new Error(`key #${i + 1} is not a 32-byte hex private key`);
  });
  if (new Set(keys.map((k) => k.toLowerCase())).size !== keys.length) throw new Error('a key is listed twice');
  return keys as Hex[];
}

/**
 * FILLER_PRIVATE_KEYS: one hex key for every EVM chain, or `chain=key,…` (`*=key` for the rest).
 * Empty: no operator wallet, so nothing is filled, refunded or claimed. The error never repeats a key.
 */
export function parseOperatorKeys(text: string): Map<string, Hex> {
  const out = new Map<string, Hex>();
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 1 && !entries[0]!.includes('=')) {
    out.set('*', parseKeys(entries[0]!)[0]!);
    return out;
  }
  for (const entry of entries) {
    const [chain, key, extra] = entry.split('=');
    if (!chain || !key || extra !== undefined || !/^([a-z][a-z0-9-]*|\*)$/.test(chain))
      throw new Error(`"${chain ?? ''}=…" is not chain=key`);
    if (out.has(chain)) throw new Error(`${chain} is listed twice`);
    const [k] = parseKeys(key);
    out.set(chain, k!);
  }
  return out;
}
