import { pow10 } from '@xchain/pricing-core';
import { invalid } from './quote-errors';

/** An amount in base units with the oracle mid price (USD, 18 decimals, per whole unit) it is valued at. */
export interface Valued {
  amount: bigint;
  priceE18: bigint;
  decimals: number;
}

/**
 * The shortfall of what a quote delivers against what it takes, both at the oracle mid prices the
 * quote was priced with, in basis points of the input value. Exact integer arithmetic: every term
 * is brought to the largest decimals of the lot (no division until the last step), and the one
 * division rounds up, so the figure never understates the loss. Fees count (they are part of the
 * shortfall); an output worth as much as the input or more is 0, never negative: a limit is about
 * losing value, and a quote that gains is within any limit.
 */
export function priceImpactBps(input: Valued, outputs: readonly Valued[]): number {
  let decimals = input.decimals;
  for (const o of outputs) if (o.decimals > decimals) decimals = o.decimals;
  const paid = scaled(input, decimals);
  let got = 0n;
  for (const o of outputs) if (o.amount !== 0n) got += scaled(o, decimals);
  if (paid <= 0n || got >= paid) return 0;
  const bps = ((paid - got) * 10_000n + paid - 1n) / paid;
  return Number(bps);
}

/** `v`'s value with its amount brought to `decimals` (≥ its own). */
function scaled(v: Valued, decimals: number): bigint {
  return v.amount * v.priceE18 * pow10(decimals - v.decimals);
}

/** PRICE_IMPACT_TOO_HIGH when the caller set a limit and the quote is past it. */
export function assertPriceImpact(impactBps: number, maxBps: number | undefined): void {
  if (maxBps === undefined || impactBps <= maxBps) return;
  throw invalid(
    'max_price_impact_bps',
    `the price impact of this quote is ${impactBps} bps, above the limit of ${maxBps} bps`,
    'PRICE_IMPACT_TOO_HIGH',
    { price_impact_bps: String(impactBps), max_price_impact_bps: String(maxBps) },
  );
}
