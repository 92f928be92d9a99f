import { PricingError } from './errors';
import { checkGasDrop, forward, forwardAmount, type ForwardResult } from './forward';
import { inverseForward } from './inverse';
import { BPS, amountCeil, e18ToMicros, microsToE18, mulDivCeil, mulDivFloor, valueFloor } from './money';
import type { SwapLegPricer } from './pricers';
import { MAX_SEARCH_STEPS, doubleThenBisect, gallopFrom } from './search';
import { defaultSlippageBps } from './slippage';
import type { QuoteInput, QuoteResult } from './types';

/**
 * Prices one trade. Pure and synchronous: prices, chain parameters and the swap-leg pricer come
 * in; the quote or a PricingError comes out.
 *
 * Floors by trade type (the `min_amount_out` a fulfilment must meet):
 * - exact input: `amount` is the deposit; floor = amount_out less the applied slippage.
 * - expected output: `amount` is the desired output; amount_in is the smallest deposit whose
 *   output reaches it (so amount_out ≥ amount, above it by at most the value of one source base
 *   unit); floor = amount_out less the applied slippage (100 % or more is rejected).
 * - exact output: as expected output, but solved for amount × (1 + slippage) and the floor is the
 *   requested amount itself: the user receives at least what was asked.
 * - exact input, guaranteed output: deposit fixed, floor = amount_out (no slippage).
 */
export function priceQuote(input: QuoteInput, pricer: SwapLegPricer): QuoteResult {
  validate(input);
  const slippage = input.slippageBps ?? defaultSlippageBps(input.src.tier, input.dst.tier);
  const srcSlippage = input.srcSlippageBps ?? defaultSlippageBps(input.src.tier, input.src.tier);
  if (slippage >= 10_000 && (input.tradeType === 'TRADE_TYPE_EXPECTED_OUTPUT' || input.tradeType === 'TRADE_TYPE_EXACT_OUTPUT')) {
    throw new PricingError('INVALID_SLIPPAGE', 'slippage_bps must be below 10000 on an output quote', { max_slippage_bps: '9999' });
  }
  if (slippage > 10_000 || srcSlippage > 10_000) {
    throw new PricingError('INVALID_SLIPPAGE', 'slippage cannot exceed 10000 bps', { max_slippage_bps: '10000' });
  }

  let amountIn: bigint;
  let result: ForwardResult;
  let minAmountOut: bigint;
  let applied = slippage;
  switch (input.tradeType) {
    case 'TRADE_TYPE_EXACT_INPUT':
    case 'TRADE_TYPE_EXACT_INPUT_GUARANTEED_OUTPUT':
      amountIn = input.amount;
      checkBand(input, valueFloor(amountIn, input.src), 'src');
      result = forward(input, amountIn, pricer);
      if (result.tooSmall) throw tooSmall(input);
      if (input.tradeType === 'TRADE_TYPE_EXACT_INPUT_GUARANTEED_OUTPUT') {
        applied = 0;
        minAmountOut = result.amountOut;
      } else {
        minAmountOut = mulDivFloor(result.amountOut, BPS - BigInt(slippage), BPS);
      }
      break;
    case 'TRADE_TYPE_EXPECTED_OUTPUT':
    case 'TRADE_TYPE_EXACT_OUTPUT': {
      const exact = input.tradeType === 'TRADE_TYPE_EXACT_OUTPUT';
      checkBand(input, valueFloor(input.amount, input.dst), 'dst');
      const target = exact ? mulDivCeil(input.amount, BPS + BigInt(slippage), BPS) : input.amount;
      ({ amountIn, result } = solveAmountIn(input, target, pricer));
      minAmountOut = exact ? input.amount : mulDivFloor(result.amountOut, BPS - BigInt(slippage), BPS);
      break;
    }
  }
  checkInventory(input, result.amountOut);

  const srcFees = result.fees.filter((f) => f.side === 'src');
  const dstFees = result.fees.filter((f) => f.side === 'dst');
  const sum = (fs: typeof srcFees) => fs.reduce((a, f) => a + f.usdMicros, 0n);
  return {
    amountIn,
    amountOut: result.amountOut,
    minAmountOut,
    slippageBps: applied,
    srcSlippageBps: srcSlippage,
    amountInUsdMicros: e18ToMicros(valueFloor(amountIn, input.src)),
    amountOutUsdMicros: e18ToMicros(valueFloor(result.amountOut, input.dst)),
    fees: result.fees,
    srcTotalUsdMicros: sum(srcFees),
    dstTotalUsdMicros: sum(dstFees),
    srcGasNative: input.gasless ? input.srcChain.relayGasNative : 0n,
    dstGasNative: input.src.chain === input.dst.chain ? 0n : input.dstChain.fulfilGasNative,
    sponsorGasInSrcToken: result.sponsorGasInSrcToken,
    routeIn: result.routeIn,
    routeOut: result.routeOut,
    sameChainSwap: input.src.chain === input.dst.chain,
    legs: result.legs,
  };
}

/**
 * The smallest deposit whose output reaches `target` (output is monotone in the deposit), with
 * its forward pass. The closed-form inverse (`inverse.ts`) gives it directly; it is accepted once
 * the pipeline confirms it: the deposit reaches the target and one unit less does not (one
 * detailed pass and one amount-only pass), so the answer is the one bisection finds. Should the
 * inverse be off (a caller's pricer with an inexact `amountInFor`), the search gallops from it
 * instead of starting over. Only with no inverse at all (a pricer that is not monotone, fees of
 * 100 %) does it double then bisect from the value of the target, as before.
 */
function solveAmountIn(input: QuoteInput, target: bigint, pricer: SwapLegPricer): { amountIn: bigint; result: ForwardResult } {
  const reaches = (a: bigint) => forwardAmount(input, a, pricer) >= target;
  const tooBig = () => new PricingError('AMOUNT_ABOVE_MAX', 'no deposit reaches the requested output', maxMeta(input, 'dst'));
  // Where the searches start: the value of the target, in source units.
  const start = amountCeil(valueFloor(target, input.dst), input.src) + 1n;
  let amountIn: bigint | undefined;
  const guess = inverseForward(input, target, pricer);
  if (guess !== undefined && guess > 0n) {
    const result = forward(input, guess, pricer);
    const guessReaches = !result.tooSmall && result.amountOut >= target;
    if (guessReaches && !reaches(guess - 1n)) amountIn = guess;
    else amountIn = gallopFrom(reaches, guess, guessReaches);
    if (amountIn === undefined || amountIn > start << BigInt(MAX_SEARCH_STEPS)) throw tooBig(); // as far as the doubling would go
    checkBand(input, valueFloor(amountIn, input.src), 'src');
    return { amountIn, result: amountIn === guess ? result : forward(input, amountIn, pricer) };
  }
  amountIn = doubleThenBisect(reaches, start);
  if (amountIn === undefined) throw tooBig();
  checkBand(input, valueFloor(amountIn, input.src), 'src');
  return { amountIn, result: forward(input, amountIn, pricer) };
}

function validate(input: QuoteInput): void {
  if (input.amount <= 0n)
    throw new PricingError(
      'AMOUNT_BELOW_MIN',
      'amount must be positive',
      minMeta(input, input.tradeType.startsWith('TRADE_TYPE_EXACT_INPUT') ? 'src' : 'dst'),
    );
  if (input.src.chain === input.dst.chain && input.src.address === input.dst.address) {
    throw new PricingError('UNSUPPORTED_PAIR', 'source and destination are the same token');
  }
  checkGasDrop(input);
  const seen = new Set<string>();
  let total = 0n;
  if (input.referrers.length > input.fees.maxReferrers) {
    throw new PricingError('INVALID_REFERRERS', `at most ${input.fees.maxReferrers} referrers`, {
      max_referrers: String(input.fees.maxReferrers),
    });
  }
  for (const r of input.referrers) {
    const key = r.address.toLowerCase();
    if (seen.has(key)) throw new PricingError('INVALID_REFERRERS', `referrer ${r.address} is listed twice`);
    seen.add(key);
    total += BigInt(r.bps);
  }
  if (total > input.fees.maxReferrerBpsTotal) {
    throw new PricingError('INVALID_REFERRERS', `referrer bps total ${total} exceeds ${input.fees.maxReferrerBpsTotal}`, {
      max_total_bps: input.fees.maxReferrerBpsTotal.toString(),
    });
  }
}

/** The accepted size band, checked on the side the request fixes; limits in that side's units. */
function checkBand(input: QuoteInput, valueE18: bigint, side: 'src' | 'dst'): void {
  if (valueE18 < microsToE18(input.fees.minOrderUsdMicros)) {
    throw new PricingError('AMOUNT_BELOW_MIN', 'order is below the accepted size', { ...minMeta(input, side), ...maxMeta(input, side) });
  }
  if (valueE18 > microsToE18(input.fees.maxOrderUsdMicros)) {
    throw new PricingError('AMOUNT_ABOVE_MAX', 'order is above the accepted size', { ...minMeta(input, side), ...maxMeta(input, side) });
  }
}

function minMeta(input: QuoteInput, side: 'src' | 'dst'): Record<string, string> {
  const t = side === 'src' ? input.src : input.dst;
  return { min_amount: amountCeil(microsToE18(input.fees.minOrderUsdMicros), t).toString() };
}

function maxMeta(input: QuoteInput, side: 'src' | 'dst'): Record<string, string> {
  const t = side === 'src' ? input.src : input.dst;
  return { max_amount: mulDivFloor(microsToE18(input.fees.maxOrderUsdMicros), 10n ** BigInt(t.decimals), t.priceE18).toString() };
}

function tooSmall(input: QuoteInput): PricingError {
  return new PricingError('AMOUNT_BELOW_MIN', 'amount does not cover the fees', minMeta(input, 'src'));
}

function checkInventory(input: QuoteInput, amountOut: bigint): void {
  if (input.src.chain === input.dst.chain || input.dstInventory === undefined) return;
  if (amountOut > input.dstInventory) {
    throw new PricingError('INSUFFICIENT_INVENTORY', `not enough ${input.dst.symbol} on ${input.dst.chain} to fill this order`, {
      available: input.dstInventory.toString(),
    });
  }
}
