import { type Hex, isHex } from 'viem';

/** `chain=value,…` → Map, each value read by `parse` (what it throws names the chain). */
export function parseChainMap<T>(text: string, parse: (value: string) => T): Map<string, T> {
  const out = new Map<string, T>();
  for (const pair of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = pair.indexOf('=');
    const chain = pair.slice(0, eq).trim();
    if (eq < 1 || !/^[a-z][a-z0-9-]*$/.test(chain)) throw new Error(`"${pair}" is not chain=value with a lowercase chain name`);
    if (out.has(chain)) throw new Error(`${chain} is named twice`);
    try {
      out.set(chain, parse(pair.slice(eq + 1).trim()));
    } catch (err) {
      throw new Error(`${chain}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return out;
}

export const parseRpcMap = (text: string) =>
  parseChainMap(text, (url) => {
    if (!/^https?:\/\/\S+$/.test(url)) throw new Error('the URL is not an http(s) URL');
    return url;
  });

/** Comma-separated 32-byte hex private keys. The error never repeats a key. */
export function parseKeys(text: string): Hex[] {
  const keys = text.split(',').map((k) => k.trim()).filter(Boolean);
  keys.forEach((k, i) => {
    if (!isHex(k) || k.length !== 66) throw new Error(`key #${i + 1} is not a 32-byte hex private key`);
  });
  if (new Set(keys.map((k) => k.toLowerCase())).size !== keys.length) throw new Error('a key is listed twice');
  return keys as Hex[];
}
