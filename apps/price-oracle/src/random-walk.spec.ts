import fc from 'fast-check';
import { drawsPerKey, seeded } from './random';
import { DEFAULT_WALK, walkStep } from './random-walk';

const BPS = 10_000n;
const uint32 = fc.integer({ min: 0, max: 0xffff_ffff });

describe('walkStep', () => {
  it('moves at most stepBps of the current value and stays inside the band', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.array(uint32, { minLength: 1, maxLength: 400 }), (anchor, draws) => {
        const lo = anchor - (anchor * DEFAULT_WALK.bandBps) / BPS;
        const hi = anchor + (anchor * DEFAULT_WALK.bandBps) / BPS;
        let current = anchor;
        for (const d of draws) {
          const next = walkStep(current, anchor, d);
          expect(typeof next).toBe('bigint');
          expect(next).toBeGreaterThan(0n);
          const move = next > current ? next - current : current - next;
          // Inside the band the move is bounded by the step; the clamp can only shorten it.
          expect(move).toBeLessThanOrEqual((current * DEFAULT_WALK.stepBps) / BPS);
          expect(next).toBeGreaterThanOrEqual(lo);
          expect(next).toBeLessThanOrEqual(hi);
          current = next;
        }
      }),
    );
  });

  it('reaches both ends of the step range', () => {
    expect(walkStep(1_000_000n, 1_000_000n, 0)).toBe(999_500n); // −5 bps
    expect(walkStep(1_000_000n, 1_000_000n, 10)).toBe(1_000_500n); // +5 bps
    expect(walkStep(1_000_000n, 1_000_000n, 5)).toBe(1_000_000n); // 0
  });

  it('clamps at the band edge', () => {
    expect(walkStep(1_010_000n, 1_000_000n, 10)).toBe(1_010_000n);
    expect(walkStep(990_000n, 1_000_000n, 0)).toBe(990_000n);
  });
});

describe('seeded draws', () => {
  it('replay exactly for the same seed and differ across seeds', () => {
    const a = seeded(7);
    const b = seeded(7);
    const c = seeded(8);
    const xs = Array.from({ length: 50 }, () => a());
    expect(Array.from({ length: 50 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 50 }, () => c())).not.toEqual(xs);
    for (const x of xs) expect(Number.isInteger(x) && x >= 0 && x <= 0xffff_ffff).toBe(true);
  });

  it('give each key its own stream, independent of the order keys are asked in', () => {
    const one = drawsPerKey(7);
    const two = drawsPerKey(7);
    const ethFirst = [one('ethereum')(), one('bitcoin')(), one('ethereum')()];
    const btcFirst = [two('bitcoin')(), two('ethereum')(), two('ethereum')()];
    expect([ethFirst[0], ethFirst[2]]).toEqual([btcFirst[1], btcFirst[2]]);
    expect(ethFirst[1]).toBe(btcFirst[0]);
  });
});
