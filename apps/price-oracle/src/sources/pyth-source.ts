import type { Price } from '@xchain/contracts';
import { z } from 'zod';
import type { Feed, PriceSource } from './source';

const PriceField = z.object({ price: z.string().regex(/^-?[0-9]+$/), conf: z.string().regex(/^[0-9]+$/), expo: z.number().int(), publish_time: z.number().int() });
/** The parts of Hermes' `/v2/updates/price/latest?parsed=true` answer we read. */
export const HermesResponse = z.object({
  parsed: z.array(z.object({ id: z.string(), price: PriceField })).default([]),
});

const norm = (id: string) => id.toLowerCase().replace(/^0x/, '');

/** Pyth prices from a Hermes server over HTTP, with an explicit timeout on every fetch. */
export class PythHermesSource implements PriceSource {
  readonly name = 'pyth' as const;

  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async fetch(feeds: readonly Feed[]): Promise<Price[]> {
    const byFeed = new Map<string, string[]>();
    for (const f of feeds) if (f.pyth_feed_id) byFeed.set(norm(f.pyth_feed_id), [...(byFeed.get(norm(f.pyth_feed_id)) ?? []), f.price_id]);
    if (byFeed.size === 0) return [];
    const url = new URL('/v2/updates/price/latest', this.baseUrl);
    for (const id of byFeed.keys()) url.searchParams.append('ids[]', `0x${id}`);
    url.searchParams.set('parsed', 'true');
    const res = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs) });
    if (!res.ok) throw new Error(`Hermes answered HTTP ${res.status}`);
    const body = HermesResponse.parse(await res.json());
    const out: Price[] = [];
    for (const entry of body.parsed) {
      const price = BigInt(entry.price.price);
      if (price <= 0n || entry.price.expo > 0) continue; // never publish a non-positive price
      for (const priceId of byFeed.get(norm(entry.id)) ?? []) {
        out.push({ price_id: priceId, price: price.toString(), expo: entry.price.expo, conf: entry.price.conf, publish_time: entry.price.publish_time, source: 'pyth' });
      }
    }
    return out;
  }
}
