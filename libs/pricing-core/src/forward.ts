import { PricingError } from './errors';
import { amountCeil, amountFloor, bpsCeil, e18ToMicros, valueCeil, valueFloor } from './money';
import type { SwapLegPricer } from './pricers';
import type { FeeComponent, QuoteInput, RouteLeg } from './types';

export interface ForwardResult {
  amountOut: bigint;
  fees: FeeComponent[];
  legs: RouteLeg[];
  sponsorGasInSrcToken: bigint;
  /** Set when fees exceed what the input or the output can carry. */
  tooSmall: boolean;
}

/**
 * Exact-input pipeline: source fees → source swap leg → bridge → destination swap leg →
 * destination fees. Every rounding favours the operator by at most one base unit: values the
 * user pays are rounded up, amounts the user receives down.
 */
export function forward(input: QuoteInput, amountIn: bigint, pricer: SwapLegPricer): ForwardResult {
  const { src, dst, srcChain, dstChain } = input;
  const sameChain = src.chain === dst.chain;
  const fees: FeeComponent[] = [];

  // Source-side charges, taken from the deposit in source token units.
  const srcCharge = (name: FeeComponent['name'], valueE18: bigint, chargedTo: FeeComponent['chargedTo'] = 'user') => {
    if (valueE18 <= 0n) return 0n;
    const tokens = amountCeil(valueE18, src);
    fees.push({ name, side: 'src', usdMicros: e18ToMicros(valueE18), native: tokens, chargedTo });
    return chargedTo === 'user' ? tokens : 0n;
  };
  // Percentage fees are taken in one rounding on the deposit itself (ceil of the total bps), so
  // one more unit deposited never costs more than one more unit of fees: the output stays
  // monotone. The components show each fee floored; the rounding remainder goes to protocol_fee.
  const referrerBps = input.referrers.reduce((sum, r) => sum + BigInt(r.bps), 0n);
  const pct: { name: FeeComponent['name']; bps: bigint }[] = [
    { name: 'protocol_fee', bps: input.fees.protocolFeeBps },
    { name: 'referrer_fee', bps: referrerBps },
    { name: 'keyless_spread', bps: input.keyless ? input.fees.keylessSpreadBps : 0n },
  ];
  const totalPct = bpsCeil(amountIn, pct.reduce((a, f) => a + f.bps, 0n));
  const shares = pct.map((f) => ({ ...f, tokens: (amountIn * f.bps) / 10_000n }));
  shares[0]!.tokens += totalPct - shares.reduce((a, f) => a + f.tokens, 0n);
  for (const f of shares) {
    if (f.tokens > 0n) fees.push({ name: f.name, side: 'src', usdMicros: e18ToMicros(valueFloor(f.tokens, src)), native: f.tokens, chargedTo: 'user' });
  }
  let deducted = totalPct;
  let sponsorGasInSrcToken = 0n;
  if (input.gasless) {
    const relayValue = valueCeil(srcChain.relayGasNative, srcChain.native);
    const charged = srcCharge('sponsor_gas', relayValue, input.sponsorFees ? 'partner' : 'user');
    sponsorGasInSrcToken = input.sponsorFees ? amountCeil(relayValue, src) : charged;
    deducted += charged;
  }
  if (deducted >= amountIn) return { amountOut: 0n, fees, legs: [], sponsorGasInSrcToken, tooSmall: true };

  const legs: RouteLeg[] = [];
  const swap = (chain: string, tIn: typeof src, tOut: typeof src, amt: bigint, side: 'src' | 'dst') => {
    if (tIn.address === tOut.address && tIn.chain === tOut.chain) return amt;
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
    const tokens = amountCeil(valueE18, dst);
    fees.push({ name, side: 'dst', usdMicros: e18ToMicros(valueE18), native: nativeAmount, chargedTo: 'user' });
    return tokens;
  };
  let dstDeducted = 0n;
  if (!sameChain) dstDeducted += dstCharge('dst_gas', dstChain.fulfilGasNative);
  dstDeducted += dstCharge('gas_drop', input.gasDrop);
  if (dstDeducted >= amount) return { amountOut: 0n, fees, legs, sponsorGasInSrcToken, tooSmall: true };
  return { amountOut: amount - dstDeducted, fees, legs, sponsorGasInSrcToken, tooSmall: false };
}

export function checkGasDrop(input: QuoteInput): void {
  if (input.gasDrop > input.dstChain.maxGasDrop) {
    throw new PricingError('GAS_DROP_OVER_CAP', `gas_drop exceeds ${input.dstChain.name}'s max_gas_drop`, {
      max_gas_drop: input.dstChain.maxGasDrop.toString(),
    });
  }
}
