import { keccak256Hex } from '@xchain/order-codec';

/**
 * The 32-byte key of a stray deposit's return, `0x` + keccak256 of `<chain>:<signature>:<memo index>`:
 * what the relayer stores the return under as its quote hash, so one deposit is returned once.
 */
export function strayReturnKey(chain: string, signature: string, index: number): string {
  return `0x${keccak256Hex(new TextEncoder().encode(`${chain}:${signature}:${index}`))}`;
}

/**
 * The id of a claim batch (D15): `0x` + keccak256 of its quote hashes' 32 bytes each, concatenated in
 * ascending order. The quote-engine names the batch so and the relayer stores its claim under it, so
 * one set of deposits is claimed by one transaction at most; the same ids on EVM and Solana.
 */
export function claimBatchKey(quoteHashes: readonly string[]): string {
  if (quoteHashes.length === 0) throw new Error('a claim batch holds at least one order');
  const sorted = [...quoteHashes].sort();
  const bytes = new Uint8Array(32 * sorted.length);
  sorted.forEach((h, i) => {
    if (!/^0x[0-9a-f]{64}$/.test(h)) throw new Error(`${h} is not a quote hash (0x and 64 lowercase hex digits)`);
    if (i > 0 && sorted[i - 1] === h) throw new Error(`${h} is twice in one claim batch`);
    bytes.set(Buffer.from(h.slice(2), 'hex'), 32 * i);
  });
  return `0x${keccak256Hex(bytes)}`;
}
