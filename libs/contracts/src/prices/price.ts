import { z } from 'zod';

/**
 * One USD price as the price-oracle publishes it: `price × 10^expo` USD per whole unit of the
 * asset (Pyth's representation, so no source loses precision on the way). Integers only.
 */
export const PriceSchema = z.object({
  /** Price identity shared by every token of one asset (the registry's `coingecko_id`). */
  price_id: z.string().regex(/^[a-z0-9-]+$/),
  price: z.string().regex(/^[1-9][0-9]*$/, 'a positive integer'),
  expo: z.number().int().min(-36).max(0),
  /** Confidence interval in the same units as `price` (0 when the source gives none). */
  conf: z.string().regex(/^(0|[1-9][0-9]*)$/),
  /** Unix seconds at which the source published this value. */
  publish_time: z.number().int().nonnegative(),
  source: z.enum(['file', 'pyth', 'chainlink']),
});
export type Price = z.infer<typeof PriceSchema>;

/**
 * JetStream KV bucket holding the latest price per `price_id` (key = price_id). Consumers watch
 * it, so they hold every price in memory and never wait on a fetch; a new replica gets the
 * current values at once.
 */
export const PRICES_BUCKET = 'prices_v1';

/** Health of each price source, as the oracle last saw it (published for operators and readiness). */
export const PriceSourceStatusSchema = z.object({
  source: z.enum(['file', 'pyth', 'chainlink']),
  ok: z.boolean(),
  last_success_time: z.number().int().nonnegative().optional(),
  detail: z.string().optional(),
});
export type PriceSourceStatus = z.infer<typeof PriceSourceStatusSchema>;

/** What to price: every distinct price identity of the listed tokens, with the sources' feed ids. */
export const PriceFeedSchema = z.object({
  price_id: z.string(),
  symbol: z.string(),
  pyth_feed_id: z
    .string()
    .regex(/^(0x)?[0-9a-f]{64}$/)
    .optional(),
});
export const ListPriceFeedsResponse = z.object({ feeds: z.array(PriceFeedSchema) });
export type ListPriceFeedsResponse = z.infer<typeof ListPriceFeedsResponse>;
