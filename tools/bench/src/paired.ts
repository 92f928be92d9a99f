import { median } from './median';

/** One slice of load on one side: its throughput, p99 and each watched service's CPU µs per request. */
export interface Slice {
  perSecond: number;
  p99Ms: number;
  cpuUs: readonly number[];
}

export interface PairedSummary {
  /** Each side's median over its slices: throughput, p99, CPU µs per request of each service. */
  before: Slice;
  after: Slice;
  /** Median over the pairs of after ÷ before throughput. */
  throughputRatio: number;
  /** Per service, the median over the pairs of after − before CPU µs per request. */
  cpuDeltaUs: number[];
  /** Per service, in how many pairs the after side spent less CPU per request. */
  afterLower: number[];
  pairs: number;
}

/**
 * What paired slices say: `before[i]` and `after[i]` ran back to back, so a machine that gets
 * faster or slower between pairs moves both; the median of the differences is what the change
 * did, and the count of pairs it won says how often.
 */
export function summarizePairs(before: readonly Slice[], after: readonly Slice[]): PairedSummary {
  if (before.length !== after.length || before.length === 0) throw new Error('paired slices must be as many on each side, and some');
  const services = before[0]!.cpuUs.length;
  const side = (xs: readonly Slice[]): Slice => ({
    perSecond: median(xs.map((x) => x.perSecond)),
    p99Ms: median(xs.map((x) => x.p99Ms)),
    cpuUs: Array.from({ length: services }, (_, i) => median(xs.map((x) => x.cpuUs[i]!))),
  });
  return {
    before: side(before),
    after: side(after),
    throughputRatio: median(before.map((b, j) => after[j]!.perSecond / b.perSecond)),
    cpuDeltaUs: Array.from({ length: services }, (_, i) => median(before.map((b, j) => after[j]!.cpuUs[i]! - b.cpuUs[i]!))),
    afterLower: Array.from({ length: services }, (_, i) => before.filter((b, j) => after[j]!.cpuUs[i]! < b.cpuUs[i]!).length),
    pairs: before.length,
  };
}

/** ABBA: pair 1 runs before then after, pair 2 after then before, and so on, so neither side always goes first. */
export function sliceOrder(pair: number): ['before', 'after'] | ['after', 'before'] {
  return pair % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
}
