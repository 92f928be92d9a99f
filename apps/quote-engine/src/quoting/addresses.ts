import { base58Decode } from '@xchain/order-codec';
import { getAddress, isAddress } from 'viem';

/** An address in a chain's own format, normalised (EIP-55 on EVM), or undefined when malformed. */
export function normaliseAddress(vm: 'evm' | 'svm', address: string): string | undefined {
  if (vm === 'evm') return isAddress(address, { strict: false }) ? getAddress(address) : undefined;
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) return undefined;
  try {
    return base58Decode(address).length === 32 ? address : undefined;
  } catch {
    return undefined;
  }
}
