import { formatFillDelay, parseFillDelay, pickFillDelay } from './fill-delay';

describe('DEVNET_FILL_DELAY_MS', () => {
  it('defaults to two to six seconds, and reads a range, a single value and off', () => {
    expect(parseFillDelay(undefined)).toEqual({ minMs: 2000, maxMs: 6000 });
    expect(parseFillDelay('500-1500')).toEqual({ minMs: 500, maxMs: 1500 });
    expect(parseFillDelay(' 0 - 10 ')).toEqual({ minMs: 0, maxMs: 10 });
    expect(parseFillDelay('3000')).toEqual({ minMs: 3000, maxMs: 3000 });
    expect(parseFillDelay('off')).toBeUndefined();
    expect(parseFillDelay('OFF')).toBeUndefined();
  });

  it('names the variable when the value is not a range', () => {
    for (const bad of ['', 'soon', '2s-6s', '-5', '1.5-2', '6000-2000', '1-2-3', '99999999']) {
      expect(() => parseFillDelay(bad)).toThrow(/DEVNET_FILL_DELAY_MS/);
    }
  });

  it('picks whole milliseconds from both ends of the range and nothing outside it', () => {
    const delay = { minMs: 2000, maxMs: 6000 };
    expect(pickFillDelay(delay, () => 0)).toBe(2000);
    expect(pickFillDelay(delay, () => 0.999999999)).toBe(6000);
    expect(pickFillDelay(delay, () => 0.5)).toBe(4000);
    expect(pickFillDelay({ minMs: 7, maxMs: 7 }, () => 0.9)).toBe(7);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(pickFillDelay({ minMs: 1, maxMs: 3 }));
    expect([...seen].sort()).toEqual([1, 2, 3]);
    expect(formatFillDelay(delay)).toBe('2000-6000 ms');
  });
});
