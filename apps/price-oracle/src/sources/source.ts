import { PriceSchema, type ListPriceFeedsResponse, type Price } from '@xchain/contracts';

/** The names PRICE_SOURCES accepts: exactly the `source` values a published price may carry. */
export const SOURCE_NAMES = PriceSchema.shape.source.options;
export type SourceName = Price['source'];

/** One thing to price, as the quote-engine lists it. */
export type Feed = ListPriceFeedsResponse['feeds'][number];

/**
 * A price source. `fetch` returns the latest values it has for the requested feeds (possibly
 * fewer, possibly old: the caller judges freshness) and throws when the source is unusable.
 */
export interface PriceSource {
  readonly name: SourceName;
  /** Whether this source is configured to price the feed at all. */
  covers(feed: Feed): boolean;
  fetch(feeds: readonly Feed[], nowSecs: number): Promise<Price[]>;
}

/** A one-line reason: viem's short message, and the low-level cause fetch hides behind "fetch failed". */
export function describeError(err: unknown): string {
  // Duck-typed: errors from fetch or a test VM may come from another realm than our Error.
  if (typeof err !== 'object' || err === null || typeof (err as { message?: unknown }).message !== 'string') return String(err);
  const e = err as { message: string; shortMessage?: string; cause?: { code?: string; message?: string } };
  const message = e.shortMessage ?? e.message;
  const detail = e.cause?.code ?? e.cause?.message;
  return detail && !message.includes(detail) ? `${message} (${detail})` : message;
}
