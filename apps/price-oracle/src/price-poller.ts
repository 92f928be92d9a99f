import type { Price } from '@xchain/contracts';
import { type Clock, SystemClock } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import type { PriceSink } from './price-store';
import { MAX_FUTURE_SKEW_SECS, isFresh, selectPrices, supersedes } from './selection';
import type { SourceMonitor } from './source-health';
import { describeError, type Feed, type PriceSource } from './sources/source';

export interface PollerOptions {
  pollMs: number;
  maxAgeSecs: number;
  /** The oracle's clock (tests replaying recorded prices set it to the recording's time). */
  clock?: Clock;
}

export interface MonitoredSource {
  source: PriceSource;
  monitor: SourceMonitor;
}

/**
 * Every `pollMs`: asks all sources at once (each bounded by its own timeout), keeps per price id
 * the first fresh value in priority order, and publishes the values that supersede what was last
 * published. A failing source only costs its own prices; nothing thrown stops the loop.
 */
export class PricePoller {
  private readonly published = new Map<string, Price>();
  private readonly clock: Clock;
  private stopped = false;
  private poked = false;
  private wake?: () => void;
  private loop?: Promise<void>;
  private publishFailing = false;
  private knowsBucket = false;

  constructor(
    private readonly sources: readonly MonitoredSource[],
    private readonly feeds: () => readonly Feed[],
    private readonly sink: PriceSink,
    private readonly log: Logger,
    private readonly opts: PollerOptions,
  ) {
    this.clock = opts.clock ?? new SystemClock();
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  /** Polls at once rather than at the next interval (a new feed list should not wait an hour). */
  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  /** One poll and publication; returns what was published. */
  async tick(): Promise<Price[]> {
    const feeds = this.feeds();
    const nowSecs = this.clock.nowSecs();
    const bySource = await Promise.all(this.sources.map((s) => this.ask(s, feeds, nowSecs)));
    const chosen = [...selectPrices(bySource, nowSecs, this.opts.maxAgeSecs).values()];
    let done: Price[] = [];
    let failures: string[] = [];
    try {
      await this.learnBucket(nowSecs);
      const due = chosen.filter((p) => supersedes(p, this.published.get(p.price_id)));
      const outcomes = await Promise.allSettled(due.map((p) => this.sink.put(p)));
      failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [describeError(o.reason)] : []));
      done = due.filter((_, i) => outcomes[i]?.status === 'fulfilled');
    } catch (err) {
      failures = [describeError(err)];
    }
    for (const p of done) this.published.set(p.price_id, p);
    // What failed is not recorded as published, so the next tick tries again; logged once per change.
    if (failures.length > 0 && !this.publishFailing)
      this.log.error({ err: failures[0], failed: failures.length }, 'publishing prices failed');
    if (failures.length === 0 && this.publishFailing) this.log.info('publishing prices works again');
    this.publishFailing = failures.length > 0;
    return done;
  }

  /**
   * Once, before the first publication: what the bucket already holds counts as published, so a
   * restarted oracle never moves a price back in time. A value from the future is clock trouble
   * and is left to be overwritten.
   */
  private async learnBucket(nowSecs: number): Promise<void> {
    if (this.knowsBucket) return;
    for (const p of (await this.sink.current?.()) ?? []) {
      if (p.publish_time <= nowSecs + MAX_FUTURE_SKEW_SECS && supersedes(p, this.published.get(p.price_id)))
        this.published.set(p.price_id, p);
    }
    this.knowsBucket = true;
  }

  private async ask({ source, monitor }: MonitoredSource, feeds: readonly Feed[], nowSecs: number): Promise<Price[]> {
    try {
      const prices = await source.fetch(feeds, nowSecs);
      monitor.recordSuccess(prices.filter((p) => isFresh(p, nowSecs, this.opts.maxAgeSecs)).length, this.clock.nowMs());
      return prices;
    } catch (err) {
      monitor.recordFailure(describeError(err), this.clock.nowMs());
      return [];
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const started = this.clock.nowMs();
      const ready = this.feeds().length > 0;
      this.poked = false;
      if (ready) {
        try {
          await this.tick();
        } catch (err) {
          this.log.error({ err: describeError(err) }, 'price poll failed');
        }
      }
      // Keep the cadence: the poll's own duration counts against the interval. With no feeds
      // yet, sleep until the feed list arrives (poke).
      await this.sleep(ready ? Math.max(0, this.opts.pollMs - (this.clock.nowMs() - started)) : undefined);
    }
  }

  private sleep(ms: number | undefined): Promise<void> {
    if (this.stopped || this.poked) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
