import { createKeccak, type IHasher } from 'hash-wasm';
import { keccak_256 } from 'js-sha3';

let wasm: IHasher | undefined;

/**
 * Resolves once the WebAssembly Keccak is compiled (a few milliseconds after this module loads;
 * never rejects). Until then, and if WebAssembly is unavailable, `keccak256Hex` answers with
 * js-sha3: the same digest, about five times slower. Measured on 736 bytes (an order's
 * encoding), Node 24 on this machine: hash-wasm 2.1 µs, js-sha3 11.7 µs, viem (noble) 29 µs.
 */
export const keccakReady: Promise<void> = createKeccak(256).then(
  (hasher) => {
    wasm = hasher;
  },
  () => undefined,
);

/** keccak256 of `bytes` as 64 lowercase hex digits, without `0x`. Synchronous: one hasher, reset per call. */
export function keccak256Hex(bytes: Uint8Array): string {
  if (wasm === undefined) return keccak_256.hex(bytes);
  wasm.init();
  wasm.update(bytes);
  return wasm.digest('hex');
}
