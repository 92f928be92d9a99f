import fc from 'fast-check';
import { forward } from './forward';
import { inverseForward } from './inverse';
import { mulDivCeil, pow10, valueFloor } from './money';
import { FixedRatePricer, OraclePoolPricer, type SwapLegPricer } from './pricers';
import { priceQuote } from './quote';
import { TOKENS, eth, input, pool, resetX87, tokenAt, usd, usdc } from './testing';
import type { QuoteInput } from './types';

/** Any fixture token, drawn as an index into the frozen list (see `tokenAt`). */
const anyToken = fc.nat({ max: TOKENS.length - 1 }).map(tokenAt);
// A suite that ran the Solana stand-in earlier in this Jest worker may have left the x87 state dirty.
beforeEach(resetX87);

// A shallow pool reaches its impact cap at $3k–$300k, so both pieces of its curve get solved.
const shallow = new OraclePoolPricer({
  feeBps: 30n,
  depthE18: { stable: usd(1_000_000n), major: usd(100_000n), long_tail: usd(10_000n) },
  maxImpactBps: 3000n,
});
const aggregator = new FixedRatePricer(1_000_000_000n, 284_519_273_518_204_911n);
// A pricer without `amountInFor`, as a caller may write one: its legs are bisected one by one.
const opaque: SwapLegPricer = { amountOut: (tIn, tOut, amountIn) => shallow.amountOut(tIn, tOut, amountIn) };
// Impact cap above half of what the fee leaves: not monotone, so no closed form is offered.
const steep = new OraclePoolPricer({
  feeBps: 30n,
  depthE18: { stable: usd(100_000n), major: usd(100_000n), long_tail: usd(10_000n) },
  maxImpactBps: 6000n,
});
const PRICERS: [string, SwapLegPricer][] = [
  ['pool', pool],
  ['shallow', shallow],
  ['aggregator', aggregator],
  ['opaque', opaque],
];

/** A deposit's output, 0 when fees swallow it (as the solver sees it). */
const outOf = (q: QuoteInput, amountIn: bigint, pricer: SwapLegPricer) => {
  const r = forward(q, amountIn, pricer);
  return r.tooSmall ? 0n : r.amountOut;
};

/** Amounts from one base unit up to ~10³⁰, spread evenly in magnitude. */
const anyMagnitude = fc.tuple(fc.integer({ min: 0, max: 30 }), fc.bigInt({ min: 1n, max: 999n })).map(([e, m]) => m * 10n ** BigInt(e));

const arbRoute = fc
  .record({
    src: anyToken,
    dst: anyToken,
    usdCents: fc.bigInt({ min: 100n, max: 50_000_000n }),
    gasless: fc.boolean(),
    sponsorFees: fc.boolean(),
    keyless: fc.boolean(),
    referrerBps: fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 5 }),
    gasDropPermille: fc.integer({ min: 0, max: 1000 }),
    targetPermille: fc.integer({ min: 1, max: 1000 }),
  })
  .filter((r) => !(r.src.chain === r.dst.chain && r.src.address === r.dst.address))
  .map((r) => {
    const base = input({ src: r.src, dst: r.dst });
    const deposit = (r.usdCents * pow10(r.src.decimals) * 10n ** 16n) / r.src.priceE18;
    const q: QuoteInput = {
      ...base,
      gasless: r.gasless,
      sponsorFees: r.gasless && r.sponsorFees,
      keyless: r.keyless,
      referrers: r.referrerBps.map((bps, i) => ({ address: `0x${i}`, bps })),
      gasDrop: (base.dstChain.maxGasDrop * BigInt(r.gasDropPermille)) / 100_000n,
    };
    return { q, deposit: deposit > 0n ? deposit : 1n, targetPermille: BigInt(r.targetPermille) };
  });

describe('closed-form inverses', () => {
  it('OraclePoolPricer.amountInFor is the smallest input reaching the output, below and at the impact cap', () => {
    const reached = { below: 0, capped: 0 };
    fc.assert(
      fc.property(anyToken, anyToken, fc.constantFrom(pool, shallow), anyMagnitude, (tIn, tOut, p, wanted) => {
        const x = p.amountInFor(tIn, tOut, wanted);
        if (x === undefined || x < 1n) return false;
        if (p.amountOut(tIn, tOut, x) < wanted || p.amountOut(tIn, tOut, x - 1n) >= wanted) return false;
        const cap = p === pool ? 1000n : 3000n;
        if (p.impactBps(tIn, tOut, valueFloor(x, tIn)) >= cap) reached.capped++;
        else reached.below++;
        return true;
      }),
      { numRuns: 2000 },
    );
    expect(reached.below).toBeGreaterThan(600);
    expect(reached.capped).toBeGreaterThan(600);
  });

  it('FixedRatePricer.amountInFor is the smallest input reaching the output, and none at a zero rate', () => {
    let reached = 0;
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        anyMagnitude,
        (quotedIn, quotedOut, wanted) => {
          const p = new FixedRatePricer(quotedIn, quotedOut);
          const x = p.amountInFor(eth.ethereum, usdc.ethereum, wanted);
          if (
            x === undefined ||
            p.amountOut(eth.ethereum, usdc.ethereum, x) < wanted ||
            (x > 0n && p.amountOut(eth.ethereum, usdc.ethereum, x - 1n) >= wanted)
          )
            return false;
          reached++;
          return true;
        },
      ),
      { numRuns: 500 },
    );
    expect(reached).toBe(500);
    expect(new FixedRatePricer(1n, 0n).amountInFor(eth.ethereum, usdc.ethereum, 1n)).toBeUndefined();
    expect(steep.amountInFor(eth.ethereum, usdc.ethereum, 1n)).toBeUndefined();
  });

  it('undoes the whole route: the smallest deposit whose output reaches the target, for every pricer', () => {
    const reached = new Map<string, number>();
    fc.assert(
      fc.property(arbRoute, fc.constantFrom(...PRICERS), ({ q, deposit, targetPermille }, [name, pricer]) => {
        const out = outOf(q, deposit, pricer);
        if (out === 0n) return; // fees swallow this deposit: no target below it to aim at
        const target = mulDivCeil(out, targetPermille, 1000n);
        const x = inverseForward(q, target, pricer);
        if (x === undefined) return false;
        if (outOf(q, x, pricer) < target || outOf(q, x - 1n, pricer) >= target || x > deposit) return false;
        reached.set(name, (reached.get(name) ?? 0) + 1);
        return true;
      }),
      { numRuns: 1200 },
    );
    for (const [name] of PRICERS) expect(reached.get(name) ?? 0).toBeGreaterThan(150);
  });

  it('prices output quotes at the smallest deposit, by the closed form or by bisection when there is none', () => {
    const reached = { expected: 0, exact: 0, bisected: 0 };
    fc.assert(
      fc.property(
        arbRoute,
        fc.constantFrom<[string, SwapLegPricer]>(...PRICERS, ['steep', steep]),
        fc.boolean(),
        ({ q, deposit }, [name, pricer], exact) => {
          const out = outOf(q, deposit, pricer);
          const wanted = out / 2n;
          if (wanted === 0n) return;
          const tradeType = exact ? 'TRADE_TYPE_EXACT_OUTPUT' : 'TRADE_TYPE_EXPECTED_OUTPUT';
          let r;
          try {
            r = priceQuote({ ...q, tradeType, amount: wanted }, pricer);
          } catch {
            return; // refused (size band, inventory): nothing to check
          }
          const target = exact ? mulDivCeil(wanted, 10_000n + BigInt(r.slippageBps), 10_000n) : wanted;
          if (r.amountOut < target || outOf(q, r.amountIn - 1n, pricer) >= target) return false;
          if (r.amountOut !== outOf(q, r.amountIn, pricer)) return false;
          if (name === 'steep') reached.bisected++;
          else reached[exact ? 'exact' : 'expected']++;
          return true;
        },
      ),
      { numRuns: 1000 },
    );
    expect(reached.expected).toBeGreaterThan(150);
    expect(reached.exact).toBeGreaterThan(150);
    expect(reached.bisected).toBeGreaterThan(60);
  });

  it('corrects an inverse that is off by a few units from where it landed, in about 2·log₂(miss) passes, to the same deposit', () => {
    let corrected = 0;
    fc.assert(
      fc.property(arbRoute, fc.integer({ min: -1000, max: 1000 }), ({ q, deposit }, offBy) => {
        // The pool's own curve, with an inverse that misses by `offBy` units on every leg.
        let legCalls = 0;
        const off: SwapLegPricer = {
          amountOut: (tIn, tOut, a) => (legCalls++, pool.amountOut(tIn, tOut, a)),
          amountInFor: (tIn, tOut, w) => {
            const x = pool.amountInFor(tIn, tOut, w);
            return x === undefined || w <= 0n ? x : x + BigInt(offBy) > 1n ? x + BigInt(offBy) : 1n;
          },
        };
        const ask = { ...q, tradeType: 'TRADE_TYPE_EXPECTED_OUTPUT' as const, amount: outOf(q, deposit, pool) / 2n };
        let exact;
        try {
          exact = priceQuote(ask, pool);
        } catch {
          return; // refused (size band): nothing to compare
        }
        const swapLegs = exact.legs.filter((l) => l.kind === 'swap').length;
        if (swapLegs === 0) return; // no leg: the pricer's inverse is never asked
        const miss = (inverseForward(ask, ask.amount, off) ?? exact.amountIn) - exact.amountIn;
        legCalls = 0;
        const r = priceQuote(ask, off);
        if (r.amountIn !== exact.amountIn || r.amountOut !== exact.amountOut) return false;
        const passes = legCalls / swapLegs;
        const bits = (miss < 0n ? -miss : miss).toString(2).length;
        if (miss !== 0n) corrected++;
        return passes <= 2 * bits + 4;
      }),
      { numRuns: 400 },
    );
    expect(corrected).toBeGreaterThan(150);
  });
});
