import { createKeccak, type IHasher } from 'hash-wasm';
import { keccak_256 } from 'js-sha3';

let wasm: IHasher | undefined;

/**
 * Resolves once the WebAssembly Keccak is compiled (a few milliseconds after this module loads;
 * never rejects). Until then, and if WebAssembly is unavailable, `keccak256Hex` answers with
 * js-sha3: the same digest, several times slower (and viem's JavaScript Keccak slower still).
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
