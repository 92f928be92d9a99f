import type { Price } from '@xchain/contracts';
import { priceIdsByFeed, pricesFromHermes } from './hermes';
import type { Feed, PriceSource } from './source';

export interface PythOptions {
  /** Hermes base URL; may carry a path prefix (node providers serve it under one). */
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
}

/** Pyth prices from Hermes over HTTP: one request for every feed per poll, always with a deadline. */
export class PythHermesSource implements PriceSource {
  readonly name = 'pyth' as const;

  constructor(private readonly opts: PythOptions) {}

  covers(feed: Feed): boolean {
    return feed.pyth_feed_id !== undefined;
  }

  async fetch(feeds: readonly Feed[]): Promise<Price[]> {
    const ids = [...priceIdsByFeed(feeds).keys()];
    if (ids.length === 0) return [];
    const url = new URL('v2/updates/price/latest', this.opts.baseUrl.endsWith('/') ? this.opts.baseUrl : `${this.opts.baseUrl}/`);
    for (const id of ids) url.searchParams.append('ids[]', `0x${id}`);
    url.searchParams.set('parsed', 'true');
    // One feed Hermes does not know must not cost us every other price (it answers 404 otherwise).
    url.searchParams.set('ignore_invalid_price_ids', 'true');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.opts.apiKey) headers['authorization'] = `Bearer ${this.opts.apiKey}`;
    let body: unknown;
    try {
      // The signal bounds the whole exchange, body included: a stalled stream cannot hang a poll.
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(this.opts.timeoutMs) });
      if (!res.ok) throw new Error(`Hermes answered HTTP ${res.status}`);
      body = await res.json();
    } catch (err) {
      // By name, not instanceof: the DOMException may come from another realm (a test VM).
      if ((err as { name?: unknown } | null)?.name === 'TimeoutError')
        throw new Error(`Hermes did not answer within ${this.opts.timeoutMs} ms`);
      throw err;
    }
    return pricesFromHermes(body, feeds);
  }
}
