import { base58Decode, checksumEvmAddress, isEvmAddress } from '@xchain/order-codec';

/** An address in a chain's own format, normalised (EIP-55 on EVM), or undefined when malformed. */
export function normaliseAddress(vm: 'evm' | 'svm', address: string): string | undefined {
  if (vm === 'evm') return isEvmAddress(address) ? checksumEvmAddress(address) : undefined;
  return isSvmAddress(address) ? address : undefined;
}

/** Whether `normaliseAddress` would accept it, without building the normal form (no hashing on EVM). */
export function isChainAddress(vm: 'evm' | 'svm', address: string): boolean {
  return vm === 'evm' ? isEvmAddress(address) : isSvmAddress(address);
}

function isSvmAddress(address: string): boolean {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) return false;
  try {
    return base58Decode(address).length === 32;
  } catch {
    return false;
  }
}

/** A token as settlement and inventory key it: an EVM address in lower case, a Solana mint (or SOL's System id) as is. */
export function tokenKey(vm: 'evm' | 'svm', token: string): string {
  return vm === 'evm' ? token.toLowerCase() : token;
}
