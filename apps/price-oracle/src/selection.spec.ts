import type { Price } from '@xchain/contracts';
import { isFresh, selectPrices, supersedes } from './selection';

const NOW = 1_795_372_260;
const p = (source: Price['source'], price_id: string, price: string, age: number): Price => ({
  price_id,
  price,
  expo: -8,
  conf: '0',
  publish_time: NOW - age,
  source,
});

describe('selectPrices', () => {
  it('takes the first source in priority order that has a fresh value, per price id', () => {
    const pyth = [p('pyth', 'ethereum', '351200000000', 2), p('pyth', 'usd-coin', '99990000', 300)];
    const chainlink = [p('chainlink', 'usd-coin', '100010000', 20), p('chainlink', 'ethereum', '350000000000', 10)];
    const file = [p('file', 'ethereum', '1', 0), p('file', 'usd-coin', '1', 0), p('file', 'bonk', '1129', 0)];
    const chosen = selectPrices([pyth, chainlink, file], NOW, 60);
    expect(chosen.get('ethereum')).toMatchObject({ source: 'pyth', price: '351200000000' });
    // Pyth's USDC is five minutes old: the fresh Chainlink value wins over it.
    expect(chosen.get('usd-coin')).toMatchObject({ source: 'chainlink', price: '100010000' });
    expect(chosen.get('bonk')).toMatchObject({ source: 'file' });
  });

  it('follows the configured order, not a fixed one', () => {
    const pyth = [p('pyth', 'ethereum', '2', 1)];
    const file = [p('file', 'ethereum', '1', 0)];
    expect(selectPrices([file, pyth], NOW, 60).get('ethereum')?.source).toBe('file');
    expect(selectPrices([pyth, file], NOW, 60).get('ethereum')?.source).toBe('pyth');
  });

  it('leaves out a price no source has fresh', () => {
    expect(selectPrices([[p('pyth', 'ethereum', '2', 61)], []], NOW, 60).size).toBe(0);
  });
});

describe('isFresh', () => {
  it('accepts up to the max age and a little clock skew ahead, nothing beyond', () => {
    expect(isFresh(p('pyth', 'x', '1', 60), NOW, 60)).toBe(true);
    expect(isFresh(p('pyth', 'x', '1', 61), NOW, 60)).toBe(false);
    expect(isFresh(p('pyth', 'x', '1', -5), NOW, 60)).toBe(true);
    expect(isFresh(p('pyth', 'x', '1', -3600), NOW, 60)).toBe(false);
  });
});

describe('supersedes', () => {
  const last = p('pyth', 'ethereum', '351200000000', 10);
  it('publishes a newer value, never an older one', () => {
    expect(supersedes(p('chainlink', 'ethereum', '1', 5), last)).toBe(true);
    expect(supersedes(p('chainlink', 'ethereum', '1', 30), last)).toBe(false);
    expect(supersedes(last, undefined)).toBe(true);
  });

  it('does not republish the same value of the same instant (a source that stopped moving)', () => {
    expect(supersedes({ ...last }, last)).toBe(false);
    expect(supersedes({ ...last, price: '351200000001' }, last)).toBe(true);
  });
});
