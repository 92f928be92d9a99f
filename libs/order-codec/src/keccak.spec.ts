import { randomBytes } from 'node:crypto';
import { keccak256 } from 'viem';
import { keccak256Hex, keccakReady } from './keccak';

/** Lengths around Keccak-256's 136-byte block, an order's 736 bytes and a witness's 768. */
const LENGTHS = [0, 1, 31, 32, 135, 136, 137, 271, 272, 736, 768, 5000];

describe('keccak256Hex', () => {
  it.each(LENGTHS)('equals viem’s keccak256 on %i random bytes, once the WebAssembly hasher is ready', async (n) => {
    await keccakReady;
    for (let i = 0; i < 20; i++) {
      const bytes = randomBytes(n);
      expect(`0x${keccak256Hex(bytes)}`).toBe(keccak256(bytes));
    }
  });

  it('gives the same digests before it is ready (js-sha3), and a view into a larger buffer hashes only its bytes', async () => {
    let early: typeof keccak256Hex | undefined;
    jest.isolateModules(() => {
      early = (jest.requireActual('./keccak') as typeof import('./keccak')).keccak256Hex;
    });
    const big = randomBytes(2000);
    const view = big.subarray(100, 836);
    const expected = keccak256(Uint8Array.from(view));
    expect(`0x${early!(view)}`).toBe(expected); // synchronously after loading: WebAssembly not compiled yet
    await keccakReady;
    expect(`0x${keccak256Hex(view)}`).toBe(expected);
  });
});
