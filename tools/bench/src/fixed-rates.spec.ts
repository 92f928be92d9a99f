import { DEFAULT_FIXED_RATES, fixedRates } from './fixed-rates';

const TARGETS = [
  ['ceiling (Fastify → NATS → echo)', {}],
  ['PreviewQuote', {}],
  ['GetQuote (stored)', {}],
  ['GetChains', {}],
] as const;

describe('fixedRates (BENCH_FIXED_RATES)', () => {
  it('reads the default: PreviewQuote and GetQuote at half the rates issue 12 measured', () => {
    expect([...fixedRates(DEFAULT_FIXED_RATES, TARGETS)]).toEqual([
      ['PreviewQuote', 1475],
      ['GetQuote (stored)', 430],
    ]);
  });

  it('takes labels with spaces and brackets, trims, and reads an empty list as no section', () => {
    expect([...fixedRates(' GetChains = 5000 , GetQuote (stored)=900 ', TARGETS)]).toEqual([
      ['GetChains', 5000],
      ['GetQuote (stored)', 900],
    ]);
    expect(fixedRates('', TARGETS).size).toBe(0);
  });

  it('refuses an operation the bench does not run, naming the ones it does', () => {
    expect(() => fixedRates('Preview=1000', TARGETS)).toThrow(/unknown operation in "Preview=1000" \(one of: .*PreviewQuote/);
    expect(() => fixedRates('PreviewQuote', TARGETS)).toThrow(/unknown operation/);
  });

  it('refuses a rate that is not a whole number of at least 1', () => {
    for (const bad of ['PreviewQuote=0', 'PreviewQuote=1.5', 'PreviewQuote=-3', 'PreviewQuote=fast', 'PreviewQuote=']) {
      expect(() => fixedRates(bad, TARGETS)).toThrow(/needs a whole number/);
    }
  });
});
