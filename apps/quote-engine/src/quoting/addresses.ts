import { base58Decode, keccak256Hex } from '@xchain/order-codec';

/** An EVM address in any case (viem's `isAddress` with `strict: false` accepts the same). */
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** The 40 ASCII bytes of the lowercase hex, reused (the hash is synchronous). */
const hexText = new Uint8Array(40);

/**
 * EIP-55: each letter of the lowercase hex is upper-cased where the keccak256 of that lowercase
 * hex text has a nibble of 8 or more. The same result as viem's `getAddress`, which hashes with a
 * JavaScript Keccak behind an LRU cache; here the WebAssembly one, about 1 µs per address.
 */
export function checksumEvmAddress(address: string): string {
  const lower = address.slice(2).toLowerCase();
  for (let i = 0; i < 40; i++) hexText[i] = lower.charCodeAt(i);
  const hash = keccak256Hex(hexText);
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower[i]!;
    out += c > '9' && hash.charCodeAt(i) >= 56 /* '8' */ ? c.toUpperCase() : c;
  }
  return out;
}

/** An address in a chain's own format, normalised (EIP-55 on EVM), or undefined when malformed. */
export function normaliseAddress(vm: 'evm' | 'svm', address: string): string | undefined {
  if (vm === 'evm') return EVM_ADDRESS.test(address) ? checksumEvmAddress(address) : undefined;
  return isSvmAddress(address) ? address : undefined;
}

/** Whether `normaliseAddress` would accept it, without building the normal form (no hashing on EVM). */
export function isChainAddress(vm: 'evm' | 'svm', address: string): boolean {
  return vm === 'evm' ? EVM_ADDRESS.test(address) : isSvmAddress(address);
}

function isSvmAddress(address: string): boolean {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) return false;
  try {
    return base58Decode(address).length === 32;
  } catch {
    return false;
  }
}
