import { AmountString, Uint32Input, Uint64Input } from './wire';

describe('wire primitives (D1)', () => {
  it.each(['0', '1', '1000000', ((1n << 256n) - 1n).toString()])('accepts amount %s', (s) => {
    expect(AmountString.safeParse(s).success).toBe(true);
  });

  it.each(['', '+1', '-1', '1.5', '01', '1e6', ' 1', '0x10', (1n << 256n).toString()])('rejects amount %j', (s) => {
    expect(AmountString.safeParse(s).success).toBe(false);
  });

  it('accepts uint32 as number or decimal string and normalises to a number', () => {
    expect(Uint32Input.parse(30)).toBe(30);
    expect(Uint32Input.parse('30')).toBe(30);
    expect(Uint32Input.safeParse(-1).success).toBe(false);
    expect(Uint32Input.safeParse(1.5).success).toBe(false);
    expect(Uint32Input.safeParse('4294967296').success).toBe(false);
  });

  it('accepts uint64 as number or string and normalises to a string', () => {
    expect(Uint64Input.parse(7)).toBe('7');
    expect(Uint64Input.parse('18446744073709551615')).toBe('18446744073709551615');
    expect(Uint64Input.safeParse('18446744073709551616').success).toBe(false);
  });
});
