import { BPS, amountCeil, amountFloor, ceilDiv, isqrt, max, min, mulDivFloor, valueCeil, valueFloor } from './money';
import type { PricedToken, Tier } from './types';

/** Prices one swap leg: how much of `tokenOut` a given `amountIn` of `tokenIn` buys. Pure. */
export interface SwapLegPricer {
  amountOut(tokenIn: PricedToken, tokenOut: PricedToken, amountIn: bigint): bigint;
  /**
   * Optional exact inverse of `amountOut`: the smallest `amountIn` whose `amountOut` reaches
   * `amountOut`, or undefined when none does or the pricer cannot tell. Output quotes solve in
   * closed form through it; a pricer without it is inverted by bisection of the leg alone.
   */
  amountInFor?(tokenIn: PricedToken, tokenOut: PricedToken, amountOut: bigint): bigint | undefined;
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
    return amountFloor(this.valueOut(valueFloor(amountIn, tokenIn), this.depth(tokenIn, tokenOut)), tokenOut);
  }

  /**
   * Undoes the three steps of `amountOut` from the last, each with the smallest input that meets
   * the next one (all three are non-decreasing, so the smallest `amountIn` reaching `wanted` is
   * exactly their composition):
   * - `amountFloor(w) ≥ wanted` ⟺ `w ≥ valueCeil(wanted)`;
   * - `valueOut(v) ≥ w`: in the capped part `⌊v·keep/BPS⌋ ≥ w` ⟺ `v ≥ ⌈w·BPS/keep⌉`; below the cap
   *   `⌊(v(BPS−fee)·depth − v²·BPS) / (BPS·depth)⌋ ≥ w` ⟺ `BPS·v² − (BPS−fee)·depth·v + w·BPS·depth ≤ 0`,
   *   so v ≥ r = (b − √disc) / 2BPS, the smaller root (b = (BPS−fee)·depth). ⌈r⌉ needs no real
   *   square root: for an integer k, r ≤ k ⟺ √disc ≥ b − 2BPS·k ⟺ ⌊√disc⌋ ≥ b − 2BPS·k (the right
   *   side is an integer), so ⌈r⌉ = ⌈(b − ⌊√disc⌋) / 2BPS⌉ exactly;
   * - `valueFloor(a) ≥ v` ⟺ `a ≥ amountCeil(v)`.
   * Offered only where `amountOut` is monotone (impact cap at most half of what the fee leaves).
   */
  amountInFor(tokenIn: PricedToken, tokenOut: PricedToken, wanted: bigint): bigint | undefined {
    if (wanted <= 0n) return 0n;
    const { feeBps, maxImpactBps } = this.pool;
    if (feeBps < 0n || feeBps >= BPS || maxImpactBps < 0n || 2n * maxImpactBps > BPS - feeBps) return undefined;
    const depth = this.depth(tokenIn, tokenOut);
    if (depth < 0n) return undefined;
    const w = valueCeil(wanted, tokenOut);
    // The cap starts at the smallest v with v·BPS ≥ depth·maxImpact.
    const capStart = ceilDiv(depth * maxImpactBps, BPS);
    let v: bigint;
    if (capStart > 0n && this.valueOut(capStart - 1n, depth) >= w) {
      const b = (BPS - feeBps) * depth;
      v = ceilDiv(b - isqrt(b * b - 4n * BPS * BPS * depth * w), 2n * BPS);
    } else {
      v = max(capStart, ceilDiv(w * BPS, BPS - feeBps - maxImpactBps));
    }
    // The algebra above makes v exact; this check keeps a wrong answer from ever leaving here.
    if (this.valueOut(v, depth) < w || (v > 0n && this.valueOut(v - 1n, depth) >= w)) return undefined;
    return amountCeil(v, tokenIn);
  }

  /** USD E18 out of a leg for `v` in: one floor of the exact pool formula. */
  private valueOut(v: bigint, depth: bigint): bigint {
    const { feeBps, maxImpactBps } = this.pool;
    if (v * BPS >= depth * maxImpactBps) {
      const keep = BPS - feeBps - maxImpactBps;
      return keep > 0n ? mulDivFloor(v, keep, BPS) : 0n;
    }
    const numerator = v * (BPS - feeBps) * depth - v * v * BPS;
    return numerator > 0n ? numerator / (BPS * depth) : 0n;
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

  /** `⌊a·out/in⌋ ≥ wanted` ⟺ `a·out ≥ wanted·in` ⟺ `a ≥ ⌈wanted·in/out⌉`; unreachable at a zero rate. */
  amountInFor(_tokenIn: PricedToken, _tokenOut: PricedToken, wanted: bigint): bigint | undefined {
    if (wanted <= 0n) return 0n;
    return this.quotedOut > 0n ? ceilDiv(wanted * this.quotedIn, this.quotedOut) : undefined;
  }
}
