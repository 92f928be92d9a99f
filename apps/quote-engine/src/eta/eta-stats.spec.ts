import { estimateEta, percentile } from './eta-stats';

describe('fulfilment estimate', () => {
  it('takes nearest-rank percentiles', () => {
    const s = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
    expect(percentile(s, 50)).toBe(50);
    expect(percentile(s, 90)).toBe(90);
    expect(percentile([7], 50)).toBe(7);
    expect(percentile([1, 2, 3], 50)).toBe(2);
  });

  it('uses the median of enough recent orders, with its count and p90', () => {
    expect(estimateEta([30, 12, 45, 20, 600], 3, 99n)).toEqual({ secs: 30n, samples: 5, p90Secs: 600n });
  });

  it('falls back to the chain default below the minimum, and to nothing without one', () => {
    expect(estimateEta([30, 40], 3, 99n)).toEqual({ secs: 99n, samples: 0 });
    expect(estimateEta(undefined, 3, 99n)).toEqual({ secs: 99n, samples: 0 });
    expect(estimateEta([30, 40], 3, undefined)).toBeUndefined();
  });
});
