import { formatDuration, formatUnits, formatUsdMicros } from './units';

describe('amounts for people', () => {
  it('turns base units into token units without floats', () => {
    expect(formatUnits('25000000', 6)).toBe('25');
    expect(formatUnits('1234567', 6)).toBe('1.234567');
    expect(formatUnits('1', 18)).toBe('0.000000000000000001');
    expect(formatUnits('0', 6)).toBe('0');
    expect(formatUnits('123456789012345678901234567890', 18)).toBe('123,456,789,012.34567890123456789');
    expect(formatUnits('1000', 0)).toBe('1,000');
    expect(formatUnits('not a number', 6)).toBe('not a number');
  });

  it('rounds USD micros to cents, half up', () => {
    expect(formatUsdMicros('1234567')).toBe('$1.23');
    expect(formatUsdMicros('1235000')).toBe('$1.24');
    expect(formatUsdMicros('999999999999')).toBe('$1,000,000.00');
    expect(formatUsdMicros('-2500000')).toBe('−$2.50');
    expect(formatUsdMicros('0')).toBe('$0.00');
  });

  it('says how long in words', () => {
    expect([formatDuration(4), formatDuration(65), formatDuration(120), formatDuration(7440), formatDuration(-1)]).toEqual([
      '4 s',
      '1 min 5 s',
      '2 min',
      '2 h 4 min',
      '—',
    ]);
  });
});
