import { rfc3339 } from './quote-wire';

describe('rfc3339', () => {
  it('writes whole seconds without a fraction and keeps a fraction that is there', () => {
    expect(rfc3339(new Date(Date.UTC(2026, 10, 22, 10, 30, 0)))).toBe('2026-11-22T10:30:00Z');
    expect(rfc3339(new Date(Date.UTC(2026, 10, 22, 10, 30, 0, 250)))).toBe('2026-11-22T10:30:00.250Z');
  });

  it('answers every instant as Date does, however many are asked and in whatever order (the texts it keeps are bounded)', () => {
    const base = Date.UTC(2026, 10, 29, 0, 0, 0);
    const instants = Array.from({ length: 300 }, (_, i) => base + (i % 2 === 0 ? i * 1000 : 86_400_000 * 7 + i * 1000));
    for (const round of [1, 2]) {
      for (const ms of round === 1 ? instants : [...instants].reverse()) {
        expect(rfc3339(new Date(ms))).toBe(new Date(ms).toISOString().replace('.000Z', 'Z'));
      }
    }
  });

  it('refuses an invalid date as Date does', () => {
    expect(() => rfc3339(new Date(Number.NaN))).toThrow(RangeError);
  });
});
