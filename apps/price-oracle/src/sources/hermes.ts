import type { Price } from '@xchain/contracts';
import { z } from 'zod';
import { MIN_EXPO } from '../decimal';
import type { Feed } from './source';

/** Pyth's price struct: `price` (i64) and `conf` (u64) as decimal strings, sharing `expo`. */
const RpcPrice = z.object({
  price: z.string().regex(/^-?[0-9]+$/),
  conf: z.string().regex(/^[0-9]+$/),
  expo: z.number().int(),
  publish_time: z.number().int(),
});

/**
 * Hermes' answer to `GET /v2/updates/price/latest?ids[]=…&parsed=true`: the signed update for
 * on-chain use in `binary`, and one decoded entry per feed in `parsed` (ids without 0x).
 */
export const HermesLatestResponse = z.object({
  binary: z.object({ encoding: z.string(), data: z.array(z.string()) }).optional(),
  parsed: z
    .array(
      z.object({
        id: z.string(),
        price: RpcPrice,
        ema_price: RpcPrice.optional(),
        metadata: z
          .object({ slot: z.number().int(), proof_available_time: z.number().int(), prev_publish_time: z.number().int() })
          .partial()
          .optional(),
      }),
    )
    .default([]),
});

/** Feed ids compare lowercase and without 0x: Hermes answers without it, the registry keeps it. */
export const normalizeFeedId = (id: string): string => id.toLowerCase().replace(/^0x/, '');

/** Price ids wanted per Pyth feed (several assets may share one feed). */
export function priceIdsByFeed(feeds: readonly Feed[]): Map<string, string[]> {
  const byFeed = new Map<string, string[]>();
  for (const f of feeds) {
    if (!f.pyth_feed_id) continue;
    const id = normalizeFeedId(f.pyth_feed_id);
    byFeed.set(id, [...(byFeed.get(id) ?? []), f.price_id]);
  }
  return byFeed;
}

/**
 * Maps a Hermes answer back to our price ids. Throws on a body that is not Hermes' format; skips
 * entries we cannot publish (a non-positive price, an exponent out of PriceSchema's range).
 */
export function pricesFromHermes(body: unknown, feeds: readonly Feed[]): Price[] {
  const parsed = HermesLatestResponse.safeParse(body);
  if (!parsed.success) throw new Error('Hermes answered an unexpected body');
  const wanted = priceIdsByFeed(feeds);
  const out: Price[] = [];
  for (const entry of parsed.data.parsed) {
    const { price, conf, expo, publish_time } = entry.price;
    if (BigInt(price) <= 0n || expo > 0 || expo < MIN_EXPO || publish_time < 0) continue;
    for (const price_id of wanted.get(normalizeFeedId(entry.id)) ?? []) {
      out.push({ price_id, price: BigInt(price).toString(), expo, conf: BigInt(conf).toString(), publish_time, source: 'pyth' });
    }
  }
  return out;
}
