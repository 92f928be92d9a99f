import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Kvm } from '@nats-io/kv';
import { PRICES_BUCKET, PriceSchema, RpcError, type Price } from '@xchain/contracts';
import { Backoff, parseJson, sleep, type NatsConnection } from '@xchain/messaging';
import { Clock, HealthRegistry, LOGGER, NATS, SystemClock } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { PRICE_BUCKET_GRACE_MS, PRICE_MAX_AGE_SECS, PRICE_MAX_FUTURE_SKEW_SECS } from '../config.tokens';

const decoder = new TextDecoder();

/** How long the quote-engine waits quietly for a prices bucket that is not there yet (see PriceBook.watchFailed). */
export const BUCKET_GRACE_MS = 30_000;

/**
 * The latest USD price of every asset, held in memory from the oracle's JetStream KV bucket, so a
 * quote never waits on a price fetch. A price older than the configured age is stale: a quote that
 * needs it fails UNAVAILABLE / STALE_PRICE instead of trading on an old number. A price stamped
 * further ahead of this clock than the allowed skew is refused: it would otherwise outrank every
 * later value until its time came (a forged or clock-skewed source freezing the price).
 *
 * Readiness (`prices`) tells what quoting will meet: not ready until the watch has replayed the
 * bucket's current values and at least one price is held (a restarted engine would otherwise
 * answer STALE_PRICE to its first requests while claiming to be ready), and `degraded: …` naming
 * the stale prices once some are older than the allowed age (still ready: the other pairs quote).
 */
@Injectable()
export class PriceBook implements OnModuleInit, OnApplicationShutdown {
  private readonly prices = new Map<string, Price>();
  /** Aborted at shutdown: ends the watch loop, and the wait between two attempts with it. */
  private readonly stopping = new AbortController();
  private watching = false;
  /** The watch has delivered every value the bucket held when it started (or a live update since). */
  private caughtUp = false;
  private stopWatch?: () => void;
  /** Price ids whose last update was refused as from the future (logged once until one is accepted). */
  private readonly refusedFuture = new Set<string>();
  /** The bucket has been watched at least once (so it exists: a failure since is a real one). */
  private opened = false;
  /** When the watch first found no bucket, before it was ever opened. */
  private missingSince: number | undefined;

  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(HealthRegistry) health: HealthRegistry,
    @Inject(PRICE_MAX_AGE_SECS) private readonly maxAgeSecs: number,
    @Inject(PRICE_MAX_FUTURE_SKEW_SECS) private readonly maxFutureSkewSecs: number,
    /** How long a bucket the price-oracle has not made yet is waited for before each retry warns. */
    @Inject(PRICE_BUCKET_GRACE_MS) private readonly bucketGraceMs: number = BUCKET_GRACE_MS,
    @Inject(Clock) private readonly clock: Clock = new SystemClock(),
  ) {
    health.register('prices', async () => this.health(this.clock.nowSecs()));
  }

  /** The readiness check: see the class comment. */
  health(nowSecs: number): { ok: boolean; detail: string } {
    if (!this.watching) return { ok: false, detail: 'not watching the price bucket' };
    if (!this.caughtUp || this.prices.size === 0) return { ok: false, detail: 'waiting for the first prices' };
    const stale = [...this.prices.values()]
      .filter((p) => nowSecs - p.publish_time > this.maxAgeSecs)
      .map((p) => p.price_id)
      .sort();
    if (stale.length === 0) return { ok: true, detail: `${this.prices.size} prices, all fresh` };
    const named = stale.slice(0, 5).join(', ') + (stale.length > 5 ? ', …' : '');
    return { ok: true, detail: `degraded: ${stale.length} of ${this.prices.size} prices older than ${this.maxAgeSecs} s (${named})` };
  }

  onModuleInit(): void {
    void this.watchForever();
  }

  onApplicationShutdown(): void {
    this.stopping.abort();
    this.stopWatch?.();
  }

  /**
   * Applies one update; an older value never replaces a newer one, and one stamped more than the
   * allowed skew ahead of `nowSecs` is ignored. Answers whether the price was taken.
   */
  apply(price: Price, nowSecs: number): boolean {
    if (price.publish_time - nowSecs > this.maxFutureSkewSecs) {
      if (!this.refusedFuture.has(price.price_id)) {
        this.refusedFuture.add(price.price_id);
        this.log.warn(
          { price_id: price.price_id, source: price.source, publish_time: price.publish_time, ahead_secs: price.publish_time - nowSecs },
          'ignored a price from the future',
        );
      }
      return false;
    }
    this.refusedFuture.delete(price.price_id);
    const current = this.prices.get(price.price_id);
    if (current && current.publish_time > price.publish_time) return false;
    this.prices.set(price.price_id, price);
    return true;
  }

  /** A fresh price, or UNAVAILABLE / STALE_PRICE naming the asset. */
  fresh(priceId: string, nowSecs: number): Price {
    const price = this.prices.get(priceId);
    if (!price) {
      throw RpcError.unavailable(`no price for ${priceId}`, 'STALE_PRICE', 5, { price_id: priceId });
    }
    const age = nowSecs - price.publish_time;
    if (age > this.maxAgeSecs) {
      throw RpcError.unavailable(`price of ${priceId} is ${age}s old`, 'STALE_PRICE', 5, {
        price_id: priceId,
        age_secs: String(age),
        max_age_secs: String(this.maxAgeSecs),
      });
    }
    return price;
  }

  /** The price when one is known and fresh; undefined otherwise (for optional USD notionals). */
  tryFresh(priceId: string | undefined, nowSecs: number): Price | undefined {
    if (!priceId) return undefined;
    const price = this.prices.get(priceId);
    return price && nowSecs - price.publish_time <= this.maxAgeSecs ? price : undefined;
  }

  /** Every price held (fresh or not), for the price-age metric. */
  held(): Price[] {
    return [...this.prices.values()];
  }

  private async watchForever(): Promise<void> {
    const backoff = new Backoff({ initialMs: 250, maxMs: 5000 });
    while (!this.stopping.signal.aborted) {
      try {
        // Open, never create: only the oracle may (D14); until it has, the watch fails and retries.
        const kv = await new Kvm(this.nc).open(PRICES_BUCKET);
        // A missing bucket fails here, not at `open`.
        const iter = await kv.watch({ key: '>' });
        this.opened = true;
        this.stopWatch = () => iter.stop();
        this.watching = true;
        backoff.reset();
        for await (const entry of iter) {
          if (entry.operation === 'PUT') {
            const parsed = PriceSchema.safeParse(parseJson(decoder.decode(entry.value)));
            if (parsed.success) this.apply(parsed.data, this.clock.nowSecs());
            else this.log.warn({ key: entry.key }, 'ignored a malformed price');
          }
          // `delta` counts the values still to replay; 0 (or a live update) means all of them are in.
          if (entry.delta === 0 || entry.isUpdate) this.caughtUp = true;
        }
      } catch (err) {
        if (!this.stopping.signal.aborted) this.watchFailed(err);
      }
      this.watching = false;
      if (this.stopping.signal.aborted) return;
      await sleep(backoff.next(), this.stopping.signal).catch(() => undefined);
    }
  }

  /**
   * At start the quote-engine usually comes up before the price-oracle has made the prices bucket
   * (only the oracle may make it, D14): that is waiting, said once at info, not a failure. A bucket
   * still missing after the grace period, or any other failure, warns at every retry.
   */
  private watchFailed(err: unknown): void {
    if (!this.opened && isMissingStream(err)) {
      if (this.missingSince === undefined) {
        this.missingSince = this.clock.nowMs();
        this.log.info(`no ${PRICES_BUCKET} bucket yet; waiting for the price-oracle to make it`);
      }
      if (this.clock.nowMs() - this.missingSince < this.bucketGraceMs) return;
    }
    this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'price watch failed; retrying');
  }
}

/** JetStream's "stream not found" (API error 10059): a KV bucket is a stream. */
function isMissingStream(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 10059 || (err instanceof Error && err.message === 'stream not found');
}
