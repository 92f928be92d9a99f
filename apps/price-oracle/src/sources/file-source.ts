import { readFileSync } from 'node:fs';
import type { Price } from '@xchain/contracts';
import { z } from 'zod';
import { parseDecimalPrice, withPrecision, type ScaledPrice } from '../decimal';
import type { Draw } from '../random';
import { walkStep, type WalkLimits } from '../random-walk';
import type { Feed, PriceSource } from './source';

/** Enough digits that a 1 bps move is always a whole number of units. */
const WALK_DIGITS = 12;

export const PricesFileSchema = z.object({
  about: z.string().optional(),
  /** price_id → USD price as a decimal string ("3512.27"): strings, so no float ever touches it. */
  prices: z.record(z.string().regex(/^[a-z0-9-]+$/), z.string()),
});

/** Reads and checks a prices file; a bad entry stops the start, naming the price id. */
export function loadPricesFile(path: string): Map<string, ScaledPrice> {
  const file = PricesFileSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  const prices = new Map<string, ScaledPrice>();
  for (const [id, text] of Object.entries(file.prices)) {
    try {
      prices.set(id, withPrecision(parseDecimalPrice(text), WALK_DIGITS));
    } catch (err) {
      throw new Error(`${path}: ${id}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return prices;
}

/**
 * Prices from a local file, the default of the local stack. The first fetch gives the file's
 * values; each later one moves every price one bounded random-walk step so quotes move. This is
 * the only source that stamps "now": its values are made here, at this instant.
 */
export class FilePriceSource implements PriceSource {
  readonly name = 'file' as const;
  private readonly current = new Map<string, bigint>();

  constructor(
    private readonly anchors: ReadonlyMap<string, ScaledPrice>,
    private readonly draws: (priceId: string) => Draw,
    private readonly limits?: WalkLimits,
  ) {}

  covers(feed: Feed): boolean {
    return this.anchors.has(feed.price_id);
  }

  async fetch(feeds: readonly Feed[], nowSecs: number): Promise<Price[]> {
    const out: Price[] = [];
    for (const { price_id } of feeds) {
      const anchor = this.anchors.get(price_id);
      if (!anchor) continue;
      const previous = this.current.get(price_id);
      const value = previous === undefined ? anchor.price : walkStep(previous, anchor.price, this.draws(price_id)(), this.limits);
      this.current.set(price_id, value);
      out.push({ price_id, price: value.toString(), expo: anchor.expo, conf: '0', publish_time: nowSecs, source: 'file' });
    }
    return out;
  }
}
