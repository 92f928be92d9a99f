import { Inject, Injectable } from '@nestjs/common';
import { Clock, Metrics, watchChainWatchers } from '@xchain/service-kit';
import { DepositWatchers } from '../chain/deposit-watchers';
import { SolanaWatcher } from '../chain/solana-watcher';
import { PriceBook } from '../prices/price-book';
import { PRICE_MAX_AGE_SECS } from '../config.tokens';

/**
 * The quote-engine's scrape-time gauges: the age of every price it holds (a price older than
 * `price_max_age_seconds` fails quotes with STALE_PRICE) and its deposit watchers' progress.
 * Both are read from memory at scrape time: no I/O.
 */
@Injectable()
export class QuoteEngineMetrics {
  constructor(
    @Inject(Metrics) metrics: Metrics,
    @Inject(PriceBook) prices: Pick<PriceBook, 'held'>,
    @Inject(PRICE_MAX_AGE_SECS) maxAgeSecs: number,
    @Inject(DepositWatchers) watchers: Pick<DepositWatchers, 'watchers'>,
    @Inject(SolanaWatcher) solana: Pick<SolanaWatcher, 'watchers'>,
    @Inject(Clock) clock: Clock,
  ) {
    const age = metrics.gauge({
      name: 'price_age_seconds',
      help: 'Seconds since the source published the price the quote-engine holds, per price id',
      labelNames: ['price_id'],
    });
    metrics
      .gauge({ name: 'price_max_age_seconds', help: 'Age past which a price is stale and quotes needing it fail (PRICE_MAX_AGE_SECS)' })
      .set(maxAgeSecs);
    metrics.onScrape('price_book', () => {
      const now = clock.nowMs() / 1000;
      age.reset();
      for (const p of prices.held()) age.set({ price_id: p.price_id }, now - p.publish_time);
    });
    watchChainWatchers(metrics, () => [...watchers.watchers(), ...solana.watchers()]);
  }
}
