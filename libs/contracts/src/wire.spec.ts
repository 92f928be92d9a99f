import { randomInt } from 'node:crypto';
import { AmountString, Uint32Input, Uint64Input, decimalAtMost } from './wire';

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

  it('decides "at most" on decimal strings as BigInt would, at and around every bound', () => {
    const cases: [bigint, bigint][] = [];
    for (const bits of [8n, 16n, 64n, 256n]) {
      const max = (1n << bits) - 1n;
      for (const d of [-2n, -1n, 0n, 1n, 2n, 10n ** 5n]) cases.push([max + d > 0n ? max + d : 0n, max]);
    }
    for (let i = 0; i < 2000; i++) {
      const a = BigInt(randomInt(0, 2 ** 40)) * 10n ** BigInt(randomInt(0, 40));
      const b = BigInt(randomInt(1, 2 ** 40)) * 10n ** BigInt(randomInt(0, 40));
      cases.push([a, b]);
    }
    for (const [a, b] of cases) expect([a, b, decimalAtMost(a.toString(), b.toString())]).toEqual([a, b, a <= b]);
  });
});
