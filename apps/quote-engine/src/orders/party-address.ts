import { base58Decode } from '@xchain/order-codec';

const EVM = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/**
 * An address as the order holds it (bytes32, lowercase hex): an EVM address in any case is
 * left-padded, a Solana base58 key is its 32 bytes, a bytes32 hex is taken as it is. Undefined
 * for anything else. The forms cannot be confused: base58 has no `0`, so never starts with `0x`.
 */
export function partyAddressBytes32(address: string): `0x${string}` | undefined {
  if (EVM.test(address)) return `0x${'0'.repeat(24)}${address.slice(2).toLowerCase()}`;
  if (BYTES32.test(address)) return `0x${address.slice(2).toLowerCase()}`;
  if (!BASE58.test(address)) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = base58Decode(address);
  } catch {
    return undefined;
  }
  return bytes.length === 32 ? `0x${Buffer.from(bytes).toString('hex')}` : undefined;
}
