import { sliceOrder, summarizePairs, type Slice } from './paired';

const s = (perSecond: number, p99Ms: number, ...cpuUs: number[]): Slice => ({ perSecond, p99Ms, cpuUs });

describe('summarizePairs', () => {
  it('reads the change from the pairs, not from the drift of the machine between them', () => {
    // The machine slows down pair after pair; the after side is 2 µs cheaper in the gateway each time.
    const before = [s(9000, 7, 60, 40), s(8000, 8, 70, 45), s(7000, 9, 80, 50)];
    const after = [s(9100, 6, 58, 41), s(8080, 9, 68, 44), s(7140, 8, 78, 50)];
    const sum = summarizePairs(before, after);
    expect(sum.cpuDeltaUs[0]).toBe(-2);
    expect(sum.afterLower).toEqual([3, 1]);
    expect(sum.cpuDeltaUs[1]).toBe(0);
    expect(sum.throughputRatio).toBeCloseTo(1.011, 3);
    expect(sum.before).toEqual({ perSecond: 8000, p99Ms: 8, cpuUs: [70, 45] });
    expect(sum.after.cpuUs).toEqual([68, 44]);
    expect(sum.pairs).toBe(3);
  });

  it('refuses sides of different lengths', () => {
    expect(() => summarizePairs([s(1, 1, 1)], [])).toThrow(/as many/);
  });
});

describe('sliceOrder', () => {
  it('alternates which side goes first', () => {
    expect([0, 1, 2, 3].map(sliceOrder)).toEqual([
      ['before', 'after'],
      ['after', 'before'],
      ['before', 'after'],
      ['after', 'before'],
    ]);
  });
});
