import { PricingError } from './errors';
import { BPS, amountCeil, amountFloor, bpsCeil, e18ToMicros, valueCeil, valueFloor } from './money';
import type { SwapLegPricer } from './pricers';
import type { FeeComponent, PricedToken, QuoteInput, RouteLeg } from './types';

export interface ForwardResult {
  amountOut: bigint;
  fees: FeeComponent[];
  legs: RouteLeg[];
  sponsorGasInSrcToken: bigint;
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

/** Destination-token units charged for a native amount delivered or paid on the destination. */
function dstChargeTokens(input: QuoteInput, nativeAmount: bigint): bigint {
  return nativeAmount > 0n ? amountCeil(valueCeil(nativeAmount, input.dstChain.native), input.dst) : 0n;
}

/** Destination-token units taken from the output: fulfilment gas (cross-chain) and gas drop. */
export function dstDeducted(input: QuoteInput): bigint {
  const gas = input.src.chain === input.dst.chain ? 0n : dstChargeTokens(input, input.dstChain.fulfilGasNative);
  return gas + dstChargeTokens(input, input.gasDrop);
}

const sameToken = (a: PricedToken, b: PricedToken) => a.address === b.address && a.chain === b.chain;

/**
 * Exact-input pipeline: source fees → source swap leg → bridge → destination swap leg →
 * destination fees. Every rounding favours the operator by at most one base unit: values the
 * user pays are rounded up, amounts the user receives down. Every step is non-decreasing in its
 * input, which is what lets `inverse.ts` undo them one at a time.
 */
export function forward(input: QuoteInput, amountIn: bigint, pricer: SwapLegPricer): ForwardResult {
  const { src, dst, srcChain, dstChain } = input;
  const sameChain = src.chain === dst.chain;
  const fees: FeeComponent[] = [];

  // Percentage fees are taken in one rounding on the deposit itself (ceil of the total bps), so
  // one more unit deposited never costs more than one more unit of fees: the output stays
  // monotone. The components show each fee floored; the rounding remainder goes to protocol_fee.
  let referrerBps = 0n;
  for (const r of input.referrers) referrerBps += BigInt(r.bps);
  const keylessBps = input.keyless ? input.fees.keylessSpreadBps : 0n;
  const totalPct = bpsCeil(amountIn, input.fees.protocolFeeBps + referrerBps + keylessBps);
  const referrerTokens = (amountIn * referrerBps) / BPS;
  const keylessTokens = (amountIn * keylessBps) / BPS;
  const protocolTokens = totalPct - referrerTokens - keylessTokens;
  const pctFee = (name: FeeComponent['name'], tokens: bigint) => {
    if (tokens > 0n) fees.push({ name, side: 'src', usdMicros: e18ToMicros(valueFloor(tokens, src)), native: tokens, chargedTo: 'user' });
  };
  pctFee('protocol_fee', protocolTokens);
  pctFee('referrer_fee', referrerTokens);
  pctFee('keyless_spread', keylessTokens);

  let deducted = totalPct;
  let sponsorGasInSrcToken = 0n;
  const relay = relayValue(input);
  if (relay > 0n) {
    const tokens = amountCeil(relay, src);
    const chargedTo = input.sponsorFees ? 'partner' : 'user';
    fees.push({ name: 'sponsor_gas', side: 'src', usdMicros: e18ToMicros(relay), native: tokens, chargedTo });
    sponsorGasInSrcToken = tokens;
    if (!input.sponsorFees) deducted += tokens;
  }
  if (deducted >= amountIn) return { amountOut: 0n, fees, legs: [], sponsorGasInSrcToken, tooSmall: true };

  const legs: RouteLeg[] = [];
  const swap = (chain: string, tIn: PricedToken, tOut: PricedToken, amt: bigint, side: 'src' | 'dst') => {
    if (sameToken(tIn, tOut)) return amt;
    const out = pricer.amountOut(tIn, tOut, amt);
    const lost = valueFloor(amt, tIn) - valueFloor(out, tOut);
    if (lost > 0n) fees.push({ name: 'swap_fee', side, usdMicros: e18ToMicros(lost), native: amountCeil(lost, tIn), chargedTo: 'user' });
    legs.push({ kind: 'swap', chain, tokenIn: tIn.address, tokenOut: tOut.address, amountIn: amt, amountOut: out });
    return out;
  };

  let amount = amountIn - deducted;
  if (sameChain) {
    amount = swap(src.chain, src, dst, amount, 'src');
  } else {
    amount = swap(src.chain, src, srcChain.bridgeAsset, amount, 'src');
    const bridged = amountFloor(valueFloor(amount, srcChain.bridgeAsset), dstChain.bridgeAsset);
    legs.push({ kind: 'bridge', chain: `${src.chain}>${dst.chain}`, tokenIn: srcChain.bridgeAsset.address, tokenOut: dstChain.bridgeAsset.address, amountIn: amount, amountOut: bridged });
    amount = swap(dst.chain, dstChain.bridgeAsset, dst, bridged, 'dst');
  }

  // Destination-side charges, taken from the output in destination token units.
  const dstCharge = (name: FeeComponent['name'], nativeAmount: bigint) => {
    if (nativeAmount <= 0n) return 0n;
    const valueE18 = valueCeil(nativeAmount, dstChain.native);
    fees.push({ name, side: 'dst', usdMicros: e18ToMicros(valueE18), native: nativeAmount, chargedTo: 'user' });
    return amountCeil(valueE18, dst);
  };
  let charged = 0n;
  if (!sameChain) charged += dstCharge('dst_gas', dstChain.fulfilGasNative);
  charged += dstCharge('gas_drop', input.gasDrop);
  if (charged >= amount) return { amountOut: 0n, fees, legs, sponsorGasInSrcToken, tooSmall: true };
  return { amountOut: amount - charged, fees, legs, sponsorGasInSrcToken, tooSmall: false };
}

export function checkGasDrop(input: QuoteInput): void {
  if (input.gasDrop > input.dstChain.maxGasDrop) {
    throw new PricingError('GAS_DROP_OVER_CAP', `gas_drop exceeds ${input.dstChain.name}'s max_gas_drop`, {
      max_gas_drop: input.dstChain.maxGasDrop.toString(),
    });
  }
}
