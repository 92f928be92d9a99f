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

const riskier = (a: Tier, b: Tier): Tier =>
  a === 'long_tail' || b === 'long_tail' ? 'long_tail' : a === 'major' || b === 'major' ? 'major' : 'stable';

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
  /** Per tier, the constants of `valueOut` (the model is copied here once: quotes only read it). */
  private readonly curves: Record<Tier, Curve>;

  constructor(private readonly pool: PoolModel) {
    const curve = (depth: bigint): Curve => ({
      depth,
      capStart: depth > 0n ? ceilDiv(depth * pool.maxImpactBps, BPS) : 0n,
      b: (BPS - pool.feeBps) * depth,
      divisor: BPS * depth,
      keep: BPS - pool.feeBps - pool.maxImpactBps,
    });
    this.curves = { stable: curve(pool.depthE18.stable), major: curve(pool.depthE18.major), long_tail: curve(pool.depthE18.long_tail) };
  }

  /** Impact in whole bps, floored: for display and tier decisions only. */
  impactBps(tokenIn: PricedToken, tokenOut: PricedToken, valueInE18: bigint): bigint {
    const depth = this.curve(tokenIn, tokenOut).depth;
    return min(this.pool.maxImpactBps, mulDivFloor(valueInE18, BPS, depth));
  }

  amountOut(tokenIn: PricedToken, tokenOut: PricedToken, amountIn: bigint): bigint {
    return amountFloor(valueOut(valueFloor(amountIn, tokenIn), this.curve(tokenIn, tokenOut)), tokenOut);
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
    const c = this.curve(tokenIn, tokenOut);
    if (c.depth < 0n) return undefined;
    const w = valueCeil(wanted, tokenOut);
    // The cap starts at the smallest v with v·BPS ≥ depth·maxImpact.
    let v: bigint;
    if (c.capStart > 0n && valueOut(c.capStart - 1n, c) >= w) {
      v = ceilDiv(c.b - isqrt(c.b * c.b - 4n * BPS * c.divisor * w), 2n * BPS);
    } else {
      v = max(c.capStart, ceilDiv(w * BPS, c.keep));
    }
    // The algebra above makes v exact; this check keeps a wrong answer from ever leaving here.
    if (valueOut(v, c) < w || (v > 0n && valueOut(v - 1n, c) >= w)) return undefined;
    return amountCeil(v, tokenIn);
  }

  private curve(tokenIn: PricedToken, tokenOut: PricedToken): Curve {
    return this.curves[riskier(tokenIn.tier, tokenOut.tier)];
  }
}

/** One tier's pool curve, its products computed once instead of on every leg. */
interface Curve {
  depth: bigint;
  /** The smallest value in that the impact cap applies to: v·BPS ≥ depth·maxImpact ⟺ v ≥ capStart. */
  capStart: bigint;
  /** (BPS − fee)·depth. */
  b: bigint;
  /** BPS·depth. */
  divisor: bigint;
  /** What the capped part keeps, in bps: BPS − fee − maxImpact. */
  keep: bigint;
}

/**
 * USD E18 out of a leg for `v` in: one floor of the exact pool formula,
 * ⌊v·((BPS − fee)·depth − v·BPS) / (BPS·depth)⌋ below the cap, ⌊v·keep/BPS⌋ at and above it.
 */
function valueOut(v: bigint, c: Curve): bigint {
  if (v >= c.capStart) return c.keep > 0n ? (v * c.keep) / BPS : 0n;
  const numerator = v * (c.b - v * BPS);
  return numerator > 0n ? numerator / c.divisor : 0n;
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
