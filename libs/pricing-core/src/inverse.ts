import { dstDeducted, percentBps, relayGasCharged } from './forward';
import { BPS, amountCeil, ceilDiv, valueCeil } from './money';
import type { SwapLegPricer } from './pricers';
import type { PricedToken, QuoteInput } from './types';

/** Most doublings a leg without an inverse may take to bracket its answer. */
const MAX_LEG_DOUBLINGS = 256;

/**
 * The smallest deposit whose `forward` output reaches `target` (≥ 1), found by undoing the
 * pipeline one step at a time from its end. Each step is non-decreasing, and for non-decreasing
 * f and g, g(f(x)) ≥ t ⟺ f(x) ≥ (the smallest y with g(y) ≥ t): so the composition of each step's
 * smallest sufficient input is the smallest sufficient deposit, with no search over the route.
 * Undefined when a step cannot be undone (a leg with no reachable input, percentage fees of
 * 100 % or more); the caller then bisects over `forward` as before.
 */
export function inverseForward(input: QuoteInput, target: bigint, pricer: SwapLegPricer): bigint | undefined {
  const { src, dst, srcChain, dstChain } = input;
  // Destination charges: out = a − charged; out ≥ target ≥ 1 also rules out "too small" there.
  let need: bigint | undefined = target + dstDeducted(input);
  if (src.chain === dst.chain) {
    need = legIn(pricer, src, dst, need);
  } else {
    need = legIn(pricer, dstChain.bridgeAsset, dst, need);
    if (need === undefined) return undefined;
    // Bridge: b = amountFloor(valueFloor(a, srcBridge), dstBridge). amountFloor(w) ≥ b ⟺ w ≥ valueCeil(b),
    // and valueFloor(a) ≥ w ⟺ a ≥ amountCeil(w).
    need = amountCeil(valueCeil(need, dstChain.bridgeAsset), srcChain.bridgeAsset);
    need = legIn(pricer, src, srcChain.bridgeAsset, need);
  }
  if (need === undefined) return undefined;
  // Source charges: net = x − ⌈x·P/BPS⌉ − gas = ⌊x·(BPS − P)/BPS⌋ − gas, and net ≥ 1 is what keeps the
  // deposit from being "too small". ⌊x·k/BPS⌋ ≥ m ⟺ x ≥ ⌈m·BPS/k⌉.
  const pct = percentBps(input);
  if (pct < 0n || pct >= BPS) return undefined;
  const net = (need > 1n ? need : 1n) + relayGasCharged(input);
  return ceilDiv(net * BPS, BPS - pct);
}

/** Smallest input of one swap leg whose output reaches `wanted`; a skipped leg passes it through. */
function legIn(pricer: SwapLegPricer, tIn: PricedToken, tOut: PricedToken, wanted: bigint): bigint | undefined {
  if (tIn.address === tOut.address && tIn.chain === tOut.chain) return wanted;
  if (pricer.amountInFor) return pricer.amountInFor(tIn, tOut, wanted);
  if (wanted <= 0n) return 0n;
  // No closed form offered: bisect this leg alone (cheap next to bisecting whole quotes).
  let hi = amountCeil(valueCeil(wanted, tOut), tIn) + 1n;
  for (let steps = 0; pricer.amountOut(tIn, tOut, hi) < wanted; steps++) {
    if (steps >= MAX_LEG_DOUBLINGS) return undefined;
    hi *= 2n;
  }
  let lo = 0n;
  while (hi - lo > 1n) {
    const mid = (lo + hi) >> 1n;
    if (pricer.amountOut(tIn, tOut, mid) >= wanted) hi = mid;
    else lo = mid;
  }
  return hi;
}
