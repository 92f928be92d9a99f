import { RpcError } from '@xchain/contracts';
import { assertPriceImpact, priceImpactBps } from './price-impact';

const E18 = 10n ** 18n;
const usdc = (amount: bigint) => ({ amount, priceE18: E18, decimals: 6 });
const eth = (amount: bigint, usd: bigint) => ({ amount, priceE18: usd * E18, decimals: 18 });

describe('priceImpactBps', () => {
  it('is the shortfall of the output value in basis points of the input value', () => {
    // 100 USDC in, 99 USDC out: 1 %.
    expect(priceImpactBps(usdc(100_000_000n), [usdc(99_000_000n)])).toBe(100);
  });

  it('rounds up, so the loss is never understated', () => {
    // One base unit short of 10 USDC is 0.01 bps: 1. 1.01 % short is exactly 101.
    expect(priceImpactBps(usdc(10_000_000n), [usdc(9_999_999n)])).toBe(1);
    expect(priceImpactBps(usdc(100_000_000n), [usdc(98_990_000n)])).toBe(101);
  });

  it('is 0 for an output worth the input or more, and for a zero input', () => {
    expect(priceImpactBps(usdc(100n), [usdc(100n)])).toBe(0);
    expect(priceImpactBps(usdc(100n), [usdc(150n)])).toBe(0);
    expect(priceImpactBps(usdc(0n), [usdc(0n)])).toBe(0);
  });

  it('values tokens of different decimals exactly and counts a gas drop as output', () => {
    // 3000 USDC in; 0.9 ETH at 3000 (2700 USD) plus a 0.05 ETH gas drop (150 USD) out: 150 USD short, 500 bps.
    expect(priceImpactBps(usdc(3_000_000_000n), [eth(9n * 10n ** 17n, 3000n), eth(5n * 10n ** 16n, 3000n)])).toBe(500);
    // Without the gas drop: 300 USD short, 1000 bps.
    expect(priceImpactBps(usdc(3_000_000_000n), [eth(9n * 10n ** 17n, 3000n)])).toBe(1000);
  });
});

describe('assertPriceImpact', () => {
  it('refuses past the limit with the figure and the limit, and passes at or under it or without one', () => {
    expect(() => assertPriceImpact(30, 30)).not.toThrow();
    expect(() => assertPriceImpact(30, undefined)).not.toThrow();
    let err: unknown;
    try {
      assertPriceImpact(31, 30);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RpcError);
    const status = (err as RpcError).status;
    expect(status.message).toContain('31 bps');
    expect(status.details).toContainEqual(
      expect.objectContaining({ reason: 'PRICE_IMPACT_TOO_HIGH', metadata: { price_impact_bps: '31', max_price_impact_bps: '30' } }),
    );
  });
});
