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
 * (impact = value / depth, as a fraction, capped at maxImpactBps).
 *
 * The impact is kept exact rather than in whole bps: whole bps would step, and one more unit in
 * would cost a whole extra bp on the entire amount, so a bigger deposit could buy less. Exactly,
 * out = v(1 - fee) - v²/depth is increasing wherever v < depth(1 - fee)/2, far above the cap
 * (reached at v = depth × maxImpact, where both pieces agree), and one final floor keeps it
 * monotone to the base unit.
 */
export class OraclePoolPricer implements SwapLegPricer {
  constructor(private readonly pool: PoolModel) {}

  /** Impact in whole bps, floored: for display and tier decisions only. */
  impactBps(tokenIn: PricedToken, tokenOut: PricedToken, valueInE18: bigint): bigint {
    const depth = this.depth(tokenIn, tokenOut);
    return min(this.pool.maxImpactBps, mulDivFloor(valueInE18, BPS, depth));
  }

  amountOut(tokenIn: PricedToken, tokenOut: PricedToken, amountIn: bigint): bigint {
    const v = valueFloor(amountIn, tokenIn);
    const depth = this.depth(tokenIn, tokenOut);
    const { feeBps, maxImpactBps } = this.pool;
    let valueOut: bigint;
    if (v * BPS >= depth * maxImpactBps) {
      const keep = BPS - feeBps - maxImpactBps;
      valueOut = keep > 0n ? mulDivFloor(v, keep, BPS) : 0n;
    } else {
      const numerator = v * (BPS - feeBps) * depth - v * v * BPS;
      valueOut = numerator > 0n ? numerator / (BPS * depth) : 0n;
    }
    return amountFloor(valueOut, tokenOut);
  }

  private depth(tokenIn: PricedToken, tokenOut: PricedToken): bigint {
    return this.pool.depthE18[riskier(tokenIn.tier, tokenOut.tier)];
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
