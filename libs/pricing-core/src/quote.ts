import { PricingError } from './errors';
import { checkGasDrop, forward, type ForwardResult } from './forward';
import { inverseForward } from './inverse';
import { BPS, amountCeil, e18ToMicros, microsToE18, mulDivCeil, mulDivFloor, valueFloor } from './money';
import type { SwapLegPricer } from './pricers';
import { defaultSlippageBps } from './slippage';
import type { QuoteInput, QuoteResult } from './types';

/** Most doublings and halvings the output solver may take; each is one pure forward pass. */
const MAX_SEARCH_STEPS = 256;

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
    sameChainSwap: input.src.chain === input.dst.chain,
    legs: result.legs,
  };
}

/**
 * The smallest deposit whose output reaches `target` (output is monotone in the deposit), with
 * its forward pass. The closed-form inverse (`inverse.ts`) gives it directly; it is accepted only
 * once `forward` itself confirms it, i.e. the deposit reaches the target and one unit less does
 * not, so the answer is the one bisection finds. Otherwise (no inverse, or a non-monotone pricer)
 * the deposit is found as before, by doubling then bisection.
 */
function solveAmountIn(input: QuoteInput, target: bigint, pricer: SwapLegPricer): { amountIn: bigint; result: ForwardResult } {
  const outOf = (a: bigint) => {
    const r = forward(input, a, pricer);
    return r.tooSmall ? 0n : r.amountOut;
  };
  // Start from the value of the target and grow until it is reached.
  let hi = amountCeil(valueFloor(target, input.dst), input.src) + 1n;
  const solved = inverseForward(input, target, pricer);
  if (solved !== undefined && solved > 0n) {
    const result = forward(input, solved, pricer);
    if (!result.tooSmall && result.amountOut >= target && outOf(solved - 1n) < target) {
      // The doubling below gives up past hi·2^MAX_SEARCH_STEPS; so does this.
      if (solved > hi << BigInt(MAX_SEARCH_STEPS)) throw new PricingError('AMOUNT_ABOVE_MAX', 'no deposit reaches the requested output', maxMeta(input, 'dst'));
      checkBand(input, valueFloor(solved, input.src), 'src');
      return { amountIn: solved, result };
    }
  }
  let steps = 0;
  while (outOf(hi) < target) {
    hi *= 2n;
    if (++steps > MAX_SEARCH_STEPS) throw new PricingError('AMOUNT_ABOVE_MAX', 'no deposit reaches the requested output', maxMeta(input, 'dst'));
  }
  let lo = 0n;
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (outOf(mid) >= target) hi = mid;
    else lo = mid;
    if (++steps > MAX_SEARCH_STEPS * 2) break;
  }
  checkBand(input, valueFloor(hi, input.src), 'src');
  return { amountIn: hi, result: forward(input, hi, pricer) };
}

function validate(input: QuoteInput): void {
  if (input.amount <= 0n) throw new PricingError('AMOUNT_BELOW_MIN', 'amount must be positive', minMeta(input, input.tradeType.startsWith('TRADE_TYPE_EXACT_INPUT') ? 'src' : 'dst'));
  if (input.src.chain === input.dst.chain && input.src.address === input.dst.address) {
    throw new PricingError('UNSUPPORTED_PAIR', 'source and destination are the same token');
  }
  checkGasDrop(input);
  const seen = new Set<string>();
  let total = 0n;
  if (input.referrers.length > input.fees.maxReferrers) {
    throw new PricingError('INVALID_REFERRERS', `at most ${input.fees.maxReferrers} referrers`, { max_referrers: String(input.fees.maxReferrers) });
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
