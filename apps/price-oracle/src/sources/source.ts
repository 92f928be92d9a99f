import type { Price } from '@xchain/contracts';

export interface Feed {
  price_id: string;
  symbol: string;
  pyth_feed_id?: string;
}

/** A price source: the latest prices it can give for the requested feeds (may be fewer). */
export interface PriceSource {
  readonly name: Price['source'];
  fetch(feeds: readonly Feed[], nowSecs: number): Promise<Price[]>;
}
