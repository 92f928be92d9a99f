import { type Hex, isHex } from 'viem';

/** Comma-separated 32-byte hex private keys. The error never repeats a key. */
export function parseKeys(text: string): Hex[] {
  const keys = text.split(',').map((k) => k.trim()).filter(Boolean);
  keys.forEach((k, i) => {
    if (!isHex(k) || k.length !== 66) throw new Error(`key #${i + 1} is not a 32-byte hex private key`);
  });
  if (new Set(keys.map((k) => k.toLowerCase())).size !== keys.length) throw new Error('a key is listed twice');
  return keys as Hex[];
}
