import { PricingError } from './errors';
import { BPS, amountCeil, amountFloor, bpsCeil, e18ToMicros, valueCeil, valueFloor } from './money';
import type { SwapLegPricer } from './pricers';
import type { FeeComponent, PricedToken, QuoteInput, RouteLeg } from './types';

export interface ForwardResult {
  amountOut: bigint;
  fees: FeeComponent[];
  legs: RouteLeg[];
  sponsorGasInSrcToken: bigint;
  /** Source units entering the route after the source fees, and destination units it yields before the destination fees. */
  routeIn: bigint;
  routeOut: bigint;
  /** Set when fees exceed what the input or the output can carry. */
  tooSmall: boolean;
}

/** Sum of the percentage fees on the deposit (protocol, referrers, keyless spread), in bps. */
export function percentBps(input: QuoteInput): bigint {
  let referrerBps = 0n;
  for (const r of input.referrers) referrerBps += BigInt(r.bps);
  return input.fees.protocolFeeBps + referrerBps + (input.keyless ? input.fees.keylessSpreadBps : 0n);
}

/** USD E18 of the relay gas of a gasless deposit (0 when not gasless). */
function relayValue(input: QuoteInput): bigint {
  return input.gasless ? valueCeil(input.srcChain.relayGasNative, input.srcChain.native) : 0n;
}

/** Source-token units of relay gas deducted from the deposit (none when sponsored). */
export function relayGasCharged(input: QuoteInput): bigint {
  const value = relayValue(input);
  return value > 0n && !input.sponsorFees ? amountCeil(value, input.src) : 0n;
}

/** Destination-token units taken from the output: fulfilment gas (cross-chain) and gas drop. */
export function dstDeducted(input: QuoteInput): bigint {
  const gas = input.src.chain === input.dst.chain ? 0n : dstCharge(input, undefined, 'dst_gas', input.dstChain.fulfilGasNative);
  return gas + dstCharge(input, undefined, 'gas_drop', input.gasDrop);
}

const sameToken = (a: PricedToken, b: PricedToken) => a.address === b.address && a.chain === b.chain;

/** What a detailed pass records besides the amount: the fee components and the legs, in order. */
type Trace = Pick<ForwardResult, 'fees' | 'legs' | 'sponsorGasInSrcToken' | 'routeIn' | 'routeOut'>;

/**
 * Exact-input pipeline: source fees → source swap leg → bridge → destination swap leg →
 * destination fees. Every rounding favours the operator by at most one base unit: values the
 * user pays are rounded up, amounts the user receives down. Every step is non-decreasing in its
 * input, which is what lets `inverse.ts` undo them one at a time.
 */
export function forward(input: QuoteInput, amountIn: bigint, pricer: SwapLegPricer): ForwardResult {
  const result: ForwardResult = { amountOut: 0n, fees: [], legs: [], sponsorGasInSrcToken: 0n, routeIn: 0n, routeOut: 0n, tooSmall: false };
  result.amountOut = pipeline(input, amountIn, pricer, result);
  result.tooSmall = result.amountOut === 0n;
  return result;
}

/**
 * The output of `forward` alone (0 when the fees swallow the deposit), with no fee components or
 * legs built: the same pipeline, for the solver's checks, which need only the amount.
 */
export function forwardAmount(input: QuoteInput, amountIn: bigint, pricer: SwapLegPricer): bigint {
  return pipeline(input, amountIn, pricer, undefined);
}

/**
 * The one pipeline behind `forward` and `forwardAmount`; records into `trace` when given. Returns
 * the output, or 0 when the deposit is too small for its fees (a real output is never 0: it must
 * exceed the destination charges).
 */
function pipeline(input: QuoteInput, amountIn: bigint, pricer: SwapLegPricer, trace: Trace | undefined): bigint {
  const { src, dst, srcChain, dstChain } = input;
  const sameChain = src.chain === dst.chain;

  // Percentage fees are taken in one rounding on the deposit itself (ceil of the total bps), so
  // one more unit deposited never costs more than one more unit of fees: the output stays
  // monotone. The components show each fee floored; the rounding remainder goes to protocol_fee.
  let referrerBps = 0n;
  for (const r of input.referrers) referrerBps += BigInt(r.bps);
  const keylessBps = input.keyless ? input.fees.keylessSpreadBps : 0n;
  let deducted = bpsCeil(amountIn, input.fees.protocolFeeBps + referrerBps + keylessBps);
  if (trace) {
    const referrerTokens = referrerBps === 0n ? 0n : (amountIn * referrerBps) / BPS;
    const keylessTokens = keylessBps === 0n ? 0n : (amountIn * keylessBps) / BPS;
    pctFee(trace, src, 'protocol_fee', deducted - referrerTokens - keylessTokens);
    pctFee(trace, src, 'referrer_fee', referrerTokens);
    pctFee(trace, src, 'keyless_spread', keylessTokens);
  }

  const relay = relayValue(input);
  if (relay > 0n) {
    const tokens = amountCeil(relay, src);
    if (trace) {
      trace.fees.push({
        name: 'sponsor_gas',
        side: 'src',
        usdMicros: e18ToMicros(relay),
        native: tokens,
        chargedTo: input.sponsorFees ? 'partner' : 'user',
        charged: input.sponsorFees ? 0n : tokens,
      });
      trace.sponsorGasInSrcToken = tokens;
    }
    if (!input.sponsorFees) deducted += tokens;
  }
  if (deducted >= amountIn) return 0n;

  let amount = amountIn - deducted;
  if (trace) trace.routeIn = amount;
  if (sameChain) {
    amount = swap(pricer, trace, src.chain, src, dst, amount, 'src');
  } else {
    amount = swap(pricer, trace, src.chain, src, srcChain.bridgeAsset, amount, 'src');
    const bridged = amountFloor(valueFloor(amount, srcChain.bridgeAsset), dstChain.bridgeAsset);
    trace?.legs.push({
      kind: 'bridge',
      chain: `${src.chain}>${dst.chain}`,
      tokenIn: srcChain.bridgeAsset.address,
      tokenOut: dstChain.bridgeAsset.address,
      amountIn: amount,
      amountOut: bridged,
    });
    amount = swap(pricer, trace, dst.chain, dstChain.bridgeAsset, dst, bridged, 'dst');
  }

  // Destination-side charges, taken from the output in destination token units.
  if (trace) trace.routeOut = amount;
  let charged = 0n;
  if (!sameChain) charged += dstCharge(input, trace, 'dst_gas', dstChain.fulfilGasNative);
  charged += dstCharge(input, trace, 'gas_drop', input.gasDrop);
  return charged >= amount ? 0n : amount - charged;
}

function pctFee(trace: Trace, src: PricedToken, name: FeeComponent['name'], tokens: bigint): void {
  if (tokens > 0n)
    trace.fees.push({
      name,
      side: 'src',
      usdMicros: e18ToMicros(valueFloor(tokens, src)),
      native: tokens,
      chargedTo: 'user',
      charged: tokens,
    });
}

/** One swap leg (skipped between the same token), recording its leg and the value it lost. */
function swap(
  pricer: SwapLegPricer,
  trace: Trace | undefined,
  chain: string,
  tIn: PricedToken,
  tOut: PricedToken,
  amt: bigint,
  side: 'src' | 'dst',
): bigint {
  if (sameToken(tIn, tOut)) return amt;
  const out = pricer.amountOut(tIn, tOut, amt);
  if (trace) {
    const lost = valueFloor(amt, tIn) - valueFloor(out, tOut);
    if (lost > 0n)
      trace.fees.push({
        name: 'swap_fee',
        side,
        usdMicros: e18ToMicros(lost),
        native: amountCeil(lost, tIn),
        chargedTo: 'user',
        charged: 0n,
      });
    trace.legs.push({ kind: 'swap', chain, tokenIn: tIn.address, tokenOut: tOut.address, amountIn: amt, amountOut: out });
  }
  return out;
}

/** Destination-token units charged for a native amount delivered or paid on the destination. */
function dstCharge(input: QuoteInput, trace: Trace | undefined, name: FeeComponent['name'], nativeAmount: bigint): bigint {
  if (nativeAmount <= 0n) return 0n;
  const valueE18 = valueCeil(nativeAmount, input.dstChain.native);
  const tokens = amountCeil(valueE18, input.dst);
  trace?.fees.push({ name, side: 'dst', usdMicros: e18ToMicros(valueE18), native: nativeAmount, chargedTo: 'user', charged: tokens });
  return tokens;
}

export function checkGasDrop(input: QuoteInput): void {
  if (input.gasDrop > input.dstChain.maxGasDrop) {
    throw new PricingError('GAS_DROP_OVER_CAP', `gas_drop exceeds ${input.dstChain.name}'s max_gas_drop`, {
      max_gas_drop: input.dstChain.maxGasDrop.toString(),
    });
  }
}
