import { PricingError } from './errors';
import { mulDivFloor } from './money';
import { FixedRatePricer } from './pricers';
import { priceQuote } from './quote';
import { bonk, eth, input, pool, sol, usdc, wbtc } from './testing';

const reason = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof PricingError) return { reason: e.reason, ...e.metadata };
    throw e;
  }
  return undefined;
};
const fee = (q: ReturnType<typeof priceQuote>, name: string) => q.fees.filter((f) => f.name === name);

describe('priceQuote', () => {
  it('prices a cross-chain USDC→USDC exact input with protocol fee and destination gas', () => {
    const q = priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum, amount: 1_000_000_000n }), pool);
    // 1000 USDC − 5 bps protocol (0.5 USDC) − arbitrum gas (0.000008 ETH × $3500 = $0.028): no swap legs.
    expect(q.amountOut).toBe(1_000_000_000n - 500_000n - 28_000n);
    expect(q.sameChainSwap).toBe(false);
    expect(q.legs.map((l) => l.kind)).toEqual(['bridge']);
    expect(fee(q, 'dst_gas')[0]).toMatchObject({ side: 'dst', usdMicros: 28_000n, native: 8_000_000_000_000n });
    expect(q.slippageBps).toBe(10);
    expect(q.minAmountOut).toBe(mulDivFloor(q.amountOut, 9_990n, 10_000n));
    expect(q.dstGasNative).toBe(8_000_000_000_000n);
  });

  it('swaps on both sides of the bridge for ETH on ethereum → SOL on solana', () => {
    const q = priceQuote(input({ src: eth.ethereum, dst: sol, amount: 10n ** 18n }), pool);
    expect(q.legs.map((l) => `${l.kind}:${l.chain}`)).toEqual(['swap:ethereum', 'bridge:ethereum>solana', 'swap:solana']);
    // ~$3500 less fees, at $150/SOL ≈ 23.3 SOL in 9 decimals.
    expect(q.amountOut).toBeGreaterThan(23_200_000_000n);
    expect(q.amountOut).toBeLessThan(23_334_000_000n);
    expect(fee(q, 'swap_fee').map((f) => f.side)).toEqual(['src', 'dst']);
    expect(q.slippageBps).toBe(50);
  });

  it('prices a same-chain swap with one leg and no destination gas', () => {
    const q = priceQuote(input({ src: usdc.ethereum, dst: wbtc, amount: 95_000_000_000n }), pool);
    expect(q.sameChainSwap).toBe(true);
    expect(q.legs).toHaveLength(1);
    expect(fee(q, 'dst_gas')).toEqual([]);
    expect(q.amountOut).toBeGreaterThan(99_000_000n); // just under 1 WBTC (8 decimals)
    expect(q.amountOut).toBeLessThan(100_000_000n);
  });

  it('charges the keyless spread only to keyless callers', () => {
    const keyed = priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum }), pool);
    const keyless = priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum, keyless: true }), pool);
    expect(fee(keyless, 'keyless_spread')[0]).toMatchObject({ usdMicros: 1_000_000n, native: 1_000_000n });
    expect(keyed.amountOut - keyless.amountOut).toBe(1_000_000n);
  });

  it('prices referrers as referrer_fee and rejects unusable lists', () => {
    const q = priceQuote(
      input({
        src: usdc.ethereum,
        dst: usdc.arbitrum,
        referrers: [
          { address: '0xa', bps: 20 },
          { address: '0xb', bps: 5 },
        ],
      }),
      pool,
    );
    expect(fee(q, 'referrer_fee')[0]).toMatchObject({ side: 'src', usdMicros: 2_500_000n });
    expect(
      reason(() =>
        priceQuote(
          input({
            src: usdc.ethereum,
            dst: usdc.arbitrum,
            referrers: [
              { address: '0xA', bps: 1 },
              { address: '0xa', bps: 1 },
            ],
          }),
          pool,
        ),
      ),
    ).toMatchObject({ reason: 'INVALID_REFERRERS' });
    expect(
      reason(() => priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum, referrers: [{ address: '0xa', bps: 501 }] }), pool)),
    ).toMatchObject({ reason: 'INVALID_REFERRERS', max_total_bps: '500' });
    const six = Array.from({ length: 6 }, (_, i) => ({ address: `0x${i}`, bps: 1 }));
    expect(reason(() => priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum, referrers: six }), pool))).toMatchObject({
      reason: 'INVALID_REFERRERS',
      max_referrers: '5',
    });
  });

  it('delivers a gas drop and caps it', () => {
    const q = priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum, gasDrop: 10n ** 15n }), pool);
    expect(fee(q, 'gas_drop')[0]).toMatchObject({ side: 'dst', usdMicros: 3_500_000n, native: 10n ** 15n });
    expect(reason(() => priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum, gasDrop: 31n * 10n ** 15n }), pool))).toEqual({
      reason: 'GAS_DROP_OVER_CAP',
      max_gas_drop: '30000000000000000',
    });
  });

  it('prices relay gas into a gasless quote, or charges it to the partner with sponsor_fees', () => {
    const user = priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum, gasless: true }), pool);
    const sponsored = priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum, gasless: true, sponsorFees: true }), pool);
    const plain = priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum }), pool);
    expect(fee(user, 'sponsor_gas')[0]).toMatchObject({ side: 'src', usdMicros: 2_100_000n, native: 2_100_000n, chargedTo: 'user' });
    expect(plain.amountOut - user.amountOut).toBe(2_100_000n);
    expect(fee(sponsored, 'sponsor_gas')[0]).toMatchObject({ chargedTo: 'partner' });
    expect(sponsored.amountOut).toBe(plain.amountOut);
    expect(sponsored.sponsorGasInSrcToken).toBe(2_100_000n);
    expect(user.srcGasNative).toBe(600_000_000_000_000n);
  });

  it('solves the deposit of an expected-output quote to land at or just above the request', () => {
    const q = priceQuote(
      input({ src: eth.ethereum, dst: usdc.arbitrum, tradeType: 'TRADE_TYPE_EXPECTED_OUTPUT', amount: 5_000_000_000n }),
      pool,
    );
    expect(q.amountOut).toBeGreaterThanOrEqual(5_000_000_000n);
    expect(q.amountOut - 5_000_000_000n).toBeLessThanOrEqual(1n); // 1 wei of ETH is worth far less than 1 micro-USDC
    const less = priceQuote(input({ src: eth.ethereum, dst: usdc.arbitrum, amount: q.amountIn - 1n }), pool);
    expect(less.amountOut).toBeLessThan(5_000_000_000n);
    expect(q.minAmountOut).toBe(mulDivFloor(q.amountOut, 9_950n, 10_000n));
  });

  it('guarantees the requested amount on an exact-output quote', () => {
    const q = priceQuote(
      input({ src: eth.ethereum, dst: usdc.arbitrum, tradeType: 'TRADE_TYPE_EXACT_OUTPUT', amount: 5_000_000_000n, slippageBps: 30 }),
      pool,
    );
    expect(q.minAmountOut).toBe(5_000_000_000n);
    expect(q.amountOut).toBeGreaterThanOrEqual(5_015_000_000n);
  });

  it('guarantees the quoted output on exact-input-guaranteed-output', () => {
    const q = priceQuote(
      input({ src: eth.ethereum, dst: usdc.arbitrum, tradeType: 'TRADE_TYPE_EXACT_INPUT_GUARANTEED_OUTPUT', amount: 10n ** 17n }),
      pool,
    );
    expect(q.minAmountOut).toBe(q.amountOut);
    expect(q.slippageBps).toBe(0);
  });

  it('uses the slippage tier of the riskier token and rejects 100 % on output quotes', () => {
    expect(priceQuote(input({ src: usdc.solana, dst: bonk, amount: 100_000_000n }), pool).slippageBps).toBe(100);
    expect(priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum, slippageBps: 7 }), pool).slippageBps).toBe(7);
    expect(
      reason(() =>
        priceQuote(input({ src: eth.ethereum, dst: usdc.arbitrum, tradeType: 'TRADE_TYPE_EXPECTED_OUTPUT', slippageBps: 10_000 }), pool),
      ),
    ).toMatchObject({ reason: 'INVALID_SLIPPAGE' });
  });

  it('enforces the size band with limits in the request token', () => {
    expect(reason(() => priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum, amount: 999_999n }), pool))).toEqual({
      reason: 'AMOUNT_BELOW_MIN',
      min_amount: '1000000',
      max_amount: '1000000000000',
    });
    expect(reason(() => priceQuote(input({ src: eth.ethereum, dst: usdc.arbitrum, amount: 10n ** 24n }), pool))).toMatchObject({
      reason: 'AMOUNT_ABOVE_MAX',
    });
    expect(
      reason(() =>
        priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum, tradeType: 'TRADE_TYPE_EXPECTED_OUTPUT', amount: 10n }), pool),
      ),
    ).toMatchObject({ reason: 'AMOUNT_BELOW_MIN', min_amount: '1000000' });
  });

  it('refuses an order the destination inventory cannot fill, and same-token pairs', () => {
    expect(reason(() => priceQuote(input({ src: usdc.ethereum, dst: usdc.arbitrum, dstInventory: 100_000_000n }), pool))).toEqual({
      reason: 'INSUFFICIENT_INVENTORY',
      available: '100000000',
    });
    expect(reason(() => priceQuote(input({ src: usdc.ethereum, dst: usdc.ethereum }), pool))).toMatchObject({ reason: 'UNSUPPORTED_PAIR' });
  });

  it('prices a leg from an aggregator rate with FixedRatePricer', () => {
    const rate = new FixedRatePricer(1_000_000_000n, 284_519_273_518_204_911n);
    const q = priceQuote(input({ src: usdc.ethereum, dst: eth.ethereum, amount: 1_000_000_000n }), rate);
    // Protocol fee first, then the aggregator's rate: 999.5 USDC → 0.2843770… ETH.
    expect(q.amountOut).toBe(mulDivFloor(999_500_000n, 284_519_273_518_204_911n, 1_000_000_000n));
  });
});

describe('OraclePoolPricer', () => {
  it('never buys less for more: a deposit crossing a whole bp of price impact (found by fast-check)', () => {
    // 5.2631 WBTC → USDC sits where the impact crosses from 249 to 250 bps. With impact in whole
    // bps, the 3,685 sats more below bought about $46 less.
    let previous = 0n;
    for (let sats = 526_300_000n; sats <= 526_330_000n; sats += 500n) {
      const out = pool.amountOut(wbtc, usdc.ethereum, sats);
      expect(out).toBeGreaterThanOrEqual(previous);
      previous = out;
    }
    const small = priceQuote(
      input({ src: wbtc, dst: usdc.ethereum, amount: 526_312_115n, referrers: [{ address: '0x0', bps: 35 }] }),
      pool,
    );
    const bigger = priceQuote(
      input({ src: wbtc, dst: usdc.ethereum, amount: 526_315_800n, referrers: [{ address: '0x0', bps: 35 }] }),
      pool,
    );
    expect(bigger.amountOut).toBeGreaterThan(small.amountOut);
  });
});
