import fc from 'fast-check';
import { isqrt } from './money';
import { resetX87 } from './testing';

// A suite that ran the Solana stand-in earlier in this Jest worker may have left the x87 state dirty.
beforeEach(resetX87);

describe('isqrt', () => {
  it('is the floor of the square root, from 0 to far past what a float can hold (the float only seeds it)', () => {
    let beyondFloat = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1200 }), fc.bigInt({ min: 0n, max: (1n << 1200n) - 1n }), (bits, raw) => {
        const n = (raw % (1n << BigInt(bits) || 1n)) + (1n << BigInt(bits)) - 1n; // about `bits` bits
        const r = isqrt(n);
        if (n >= 1n << 1024n) beyondFloat++;
        return r >= 0n && r * r <= n && (r + 1n) * (r + 1n) > n;
      }),
      { numRuns: 3000 },
    );
    expect(beyondFloat).toBeGreaterThan(300);
  });

  it('is exact at perfect squares and one below them, where a rounded seed would land wrong', () => {
    for (const root of [1n, 2n, 3n, 94_906_265n, 94_906_266n, (1n << 53n) + 1n, 10n ** 40n + 7n, (1n << 600n) + 3n]) {
      expect(isqrt(root * root)).toBe(root);
      expect(isqrt(root * root - 1n)).toBe(root - 1n);
      expect(isqrt(root * root + 2n * root)).toBe(root); // (root + 1)² − 1
    }
    expect(() => isqrt(-1n)).toThrow(RangeError);
  });
});
