import type { FeeBreakdown, QuotePreview } from '@xchain/contracts';
import type { QuoteResult } from '@xchain/pricing-core';
import type { EtaEstimate } from '../eta/eta-stats';

export function feeBreakdownOf(r: QuoteResult): FeeBreakdown {
  return {
    components: r.fees.map((f) => ({
      name: f.name,
      side: f.side,
      usd_micros: f.usdMicros.toString(),
      native: f.native.toString(),
      charged: f.charged.toString(),
    })),
    src_total_usd_micros: r.srcTotalUsdMicros.toString(),
    dst_total_usd_micros: r.dstTotalUsdMicros.toString(),
    src_gas_native: r.srcGasNative.toString(),
    dst_gas_native: r.dstGasNative.toString(),
    route_in: r.routeIn.toString(),
    route_out: r.routeOut.toString(),
  };
}

export function etaFields(
  eta: EtaEstimate | undefined,
): Pick<QuotePreview, 'fulfill_eta_secs' | 'fulfill_eta_samples' | 'fulfill_eta_p90_secs'> {
  if (!eta) return {};
  return {
    fulfill_eta_secs: eta.secs.toString(),
    fulfill_eta_samples: String(eta.samples),
    ...(eta.p90Secs !== undefined ? { fulfill_eta_p90_secs: eta.p90Secs.toString() } : {}),
  };
}

/** The priced figures shared by QuotePreview and both Quote cases. */
export function pricedFields(r: QuoteResult, eta: EtaEstimate | undefined, priceImpactBps: number) {
  return {
    amount_in: r.amountIn.toString(),
    amount_out: r.amountOut.toString(),
    min_amount_out: r.minAmountOut.toString(),
    amount_in_usd_micros: r.amountInUsdMicros.toString(),
    amount_out_usd_micros: r.amountOutUsdMicros.toString(),
    slippage_bps: r.slippageBps,
    fee_breakdown: feeBreakdownOf(r),
    ...etaFields(eta),
    price_impact_bps: priceImpactBps,
  };
}

/**
 * RFC 3339 in whole seconds when there is no fraction (`2026-11-22T10:30:00Z`), as the interface
 * shows times. Every quote writes the same two instants for a second (its expiry and retention),
 * so the last few texts are kept by their milliseconds.
 */
export function rfc3339(d: Date): string {
  const ms = d.getTime();
  let text = written.get(ms);
  if (text === undefined) {
    if (written.size >= TIMES_KEPT) written.clear();
    text = d.toISOString().replace('.000Z', 'Z');
    written.set(ms, text);
  }
  return text;
}

const TIMES_KEPT = 64;
const written = new Map<number, string>();
