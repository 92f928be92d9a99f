import { keccak256Hex } from '@xchain/order-codec';

/**
 * The 32-byte key of a stray deposit's return, `0x` + keccak256 of `<chain>:<signature>:<memo index>`:
 * what the relayer stores the return under as its quote hash, so one deposit is returned once.
 */
export function strayReturnKey(chain: string, signature: string, index: number): string {
  return `0x${keccak256Hex(new TextEncoder().encode(`${chain}:${signature}:${index}`))}`;
}
