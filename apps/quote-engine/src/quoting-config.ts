import { readFileSync } from 'node:fs';
import { type FeeConfig, type PoolModel, E18 } from '@xchain/pricing-core';
import { z } from 'zod';

const Int = z
  .string()
  .regex(/^(0|[1-9][0-9]*)$/)
  .transform((s) => BigInt(s));

/** The operator's quoting settings (config/quoting.json); every figure is an integer string. */
export const QuotingConfigSchema = z.object({
  protocol_fee_bps: Int,
  keyless_spread_bps: Int,
  max_referrers: z.number().int().min(0).max(20),
  max_referrer_bps_total: Int,
  min_order_usd_micros: Int,
  max_order_usd_micros: Int,
  pool: z.object({
    fee_bps: Int,
    depth_usd: z.object({ stable: Int, major: Int, long_tail: Int }),
    max_impact_bps: Int,
  }),
  chains: z.record(
    z.string(),
    z.object({
      /** Symbol of the chain's bridge asset in the registry. */
      bridge_asset: z.string(),
      fulfil_gas_native: Int,
      relay_gas_native: Int,
    }),
  ),
  /** Caps on the filler inventory a quote may promise, per `chain:SYMBOL`, base units; a missing entry caps nothing (live inventory still applies). */
  inventory: z.record(z.string(), Int),
  /** Per `chain:SYMBOL`, base units: live inventory below this raises the InventoryBelowFloor alert (time to top the operator wallet up). */
  inventory_floors: z.record(z.string(), Int).default({}),
  /**
   * Inventory targets (issue 47), per token symbol and chain: the share of the token's holdings on
   * every listed chain (filler inventory + claims due + moves in flight) that chain should hold, the
   * share below which a move into it is planned, and the smallest and largest move into it, base
   * units. USDC between EVM chains is moved through CCTP; other tokens (and Solana) are shown and
   * alerted on, never moved.
   */
  inventory_targets: z
    .record(
      z.string(),
      z.record(
        z.string(),
        z
          .object({ target_bps: Int, threshold_bps: Int, min_move: Int, max_move: Int })
          .refine((t) => t.threshold_bps <= t.target_bps, 'threshold_bps must not exceed target_bps')
          .refine((t) => t.min_move <= t.max_move, 'min_move must not exceed max_move'),
      ),
    )
    .default({})
    .refine(
      (tokens) => Object.values(tokens).every((chains) => Object.values(chains).reduce((sum, t) => sum + t.target_bps, 0n) <= 10_000n),
      "a token's target_bps over its chains must sum to at most 10000",
    ),
  /** Suspended bridge directions, `src>dst`. */
  suspended_pairs: z.array(z.string().regex(/^[a-z0-9-]+>[a-z0-9-]+$/)),
});
export type QuotingConfig = z.output<typeof QuotingConfigSchema>;

export function loadQuotingConfig(path: string): QuotingConfig {
  return QuotingConfigSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
}

export function feeConfigOf(c: QuotingConfig): FeeConfig {
  return {
    protocolFeeBps: c.protocol_fee_bps,
    keylessSpreadBps: c.keyless_spread_bps,
    maxReferrers: c.max_referrers,
    maxReferrerBpsTotal: c.max_referrer_bps_total,
    minOrderUsdMicros: c.min_order_usd_micros,
    maxOrderUsdMicros: c.max_order_usd_micros,
  };
}

export function poolModelOf(c: QuotingConfig): PoolModel {
  return {
    feeBps: c.pool.fee_bps,
    depthE18: { stable: c.pool.depth_usd.stable * E18, major: c.pool.depth_usd.major * E18, long_tail: c.pool.depth_usd.long_tail * E18 },
    maxImpactBps: c.pool.max_impact_bps,
  };
}
