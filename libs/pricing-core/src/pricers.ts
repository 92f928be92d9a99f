import { BPS, amountFloor, min, mulDivFloor, valueFloor } from './money';
import type { PricedToken, Tier } from './types';

/** Prices one swap leg: how much of `tokenOut` a given `amountIn` of `tokenIn` buys. Pure. */
export interface SwapLegPricer {
  amountOut(tokenIn: PricedToken, tokenOut: PricedToken, amountIn: bigint): bigint;
}

export interface PoolModel {
  feeBps: bigint;
  /** Pool depth in USD E18 by the riskier token's tier: impact grows linearly with size/depth. */
  depthE18: Record<Tier, bigint>;
  maxImpactBps: bigint;
}

const riskier = (a: Tier, b: Tier): Tier => (a === 'long_tail' || b === 'long_tail' ? 'long_tail' : a === 'major' || b === 'major' ? 'major' : 'stable');

/**
 * The default: converts at oracle prices, less a pool fee and a size-dependent price impact
 * (impact bps = value / depth × 10000, capped). Monotone in the input.
 */
export class OraclePoolPricer implements SwapLegPricer {
  constructor(private readonly pool: PoolModel) {}

  impactBps(tokenIn: PricedToken, tokenOut: PricedToken, valueInE18: bigint): bigint {
    const depth = this.pool.depthE18[riskier(tokenIn.tier, tokenOut.tier)];
    return min(this.pool.maxImpactBps, mulDivFloor(valueInE18, BPS, depth));
  }

  amountOut(tokenIn: PricedToken, tokenOut: PricedToken, amountIn: bigint): bigint {
    const valueIn = valueFloor(amountIn, tokenIn);
    const keepBps = BPS - this.pool.feeBps - this.impactBps(tokenIn, tokenOut, valueIn);
    if (keepBps <= 0n) return 0n;
    return amountFloor(mulDivFloor(valueIn, keepBps, BPS), tokenOut);
  }
}

/**
 * Scales one quoted (amountIn, amountOut) pair linearly, e.g. an aggregator's answer (0x,
 * Jupiter) for the leg. Exact at the quoted size; the engine re-asks when the size moves.
 */
export class FixedRatePricer implements SwapLegPricer {
  constructor(
    private readonly quotedIn: bigint,
    private readonly quotedOut: bigint,
  ) {
    if (quotedIn <= 0n || quotedOut < 0n) throw new RangeError('a quoted rate needs a positive input');
  }

  amountOut(_tokenIn: PricedToken, _tokenOut: PricedToken, amountIn: bigint): bigint {
    return mulDivFloor(amountIn, this.quotedOut, this.quotedIn);
  }
}
