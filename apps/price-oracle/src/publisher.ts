import { Kvm, type KV } from '@nats-io/kv';
import { ListPriceFeedsRpc, PRICES_BUCKET, PriceSchema, type Price } from '@xchain/contracts';
import type { NatsConnection, RpcClient } from '@xchain/messaging';
import type { Logger } from '@xchain/telemetry';
import type { Feed, PriceSource } from './sources/source';

export interface SourceHealth {
  ok: boolean;
  lastSuccessMs?: number;
  detail?: string;
}

const encoder = new TextEncoder();

/**
 * Polls the sources and publishes the best fresh price per asset into the JetStream KV bucket.
 * A price is republished only when it is newer than the last one published, so a frozen source
 * never looks fresh; a source that errors or goes silent is reported, once per change.
 */
export class PricePublisher {
  private feeds: Feed[] = [];
  private feedsLoadedAt = 0;
  private kv?: KV;
  private readonly published = new Map<string, number>();
  private readonly health = new Map<string, SourceHealth>();
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly rpc: RpcClient,
    private readonly sources: PriceSource[],
    private readonly log: Logger,
    private readonly opts: { pollMs: number; maxSilenceMs: number; feedsRefreshMs: number; now?: () => number },
  ) {
    for (const s of sources) this.health.set(s.name, { ok: false, detail: 'not polled yet' });
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.opts.pollMs);
    void this.tick();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  sourceHealth(): Record<string, SourceHealth> {
    return Object.fromEntries(this.health);
  }

  get feedCount(): number {
    return this.feeds.length;
  }

  /** One poll of every source; overlapping ticks are skipped. */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.refreshFeeds();
      if (this.feeds.length === 0) return;
      this.kv ??= await new Kvm(this.nc).create(PRICES_BUCKET, { history: 1 });
      const nowMs = this.opts.now?.() ?? Date.now();
      const nowSecs = Math.floor(nowMs / 1000);
      const best = new Map<string, Price>();
      for (const source of this.sources) {
        const prices = await this.poll(source, nowSecs, nowMs);
        for (const p of prices) if (!best.has(p.price_id)) best.set(p.price_id, p);
      }
      for (const price of best.values()) {
        if ((this.published.get(price.price_id) ?? -1) >= price.publish_time && price.source !== 'file') continue;
        const checked = PriceSchema.parse(price);
        await this.kv.put(checked.price_id, encoder.encode(JSON.stringify(checked)));
        this.published.set(checked.price_id, checked.publish_time);
      }
    } catch (err) {
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'price publication failed');
    } finally {
      this.running = false;
    }
  }

  private async poll(source: PriceSource, nowSecs: number, nowMs: number): Promise<Price[]> {
    const before = this.health.get(source.name)!;
    try {
      const maxAge = Math.ceil(this.opts.maxSilenceMs / 1000);
      const prices = (await source.fetch(this.feeds, nowSecs)).filter((p) => nowSecs - p.publish_time <= maxAge);
      if (prices.length > 0) this.setHealth(source.name, before, { ok: true, lastSuccessMs: nowMs });
      else if (before.lastSuccessMs === undefined || nowMs - before.lastSuccessMs > this.opts.maxSilenceMs) {
        this.setHealth(source.name, before, { ok: false, ...(before.lastSuccessMs ? { lastSuccessMs: before.lastSuccessMs } : {}), detail: 'no fresh prices' });
      }
      return prices;
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      const silentTooLong = before.lastSuccessMs === undefined || nowMs - before.lastSuccessMs > this.opts.maxSilenceMs;
      this.setHealth(source.name, before, { ok: !silentTooLong && before.ok, ...(before.lastSuccessMs ? { lastSuccessMs: before.lastSuccessMs } : {}), detail });
      return [];
    }
  }

  private setHealth(name: string, before: SourceHealth, next: SourceHealth): void {
    if (before.ok !== next.ok) {
      if (next.ok) this.log.info({ source: name }, 'price source healthy');
      else this.log.warn({ source: name, detail: next.detail }, 'price source unhealthy');
    }
    this.health.set(name, next);
  }

  private async refreshFeeds(): Promise<void> {
    const nowMs = Date.now();
    if (this.feeds.length > 0 && nowMs - this.feedsLoadedAt < this.opts.feedsRefreshMs) return;
    try {
      const res = await this.rpc.call(ListPriceFeedsRpc, {}, { caller: { kind: 'internal', service: 'price-oracle' } });
      this.feeds = res.feeds;
      this.feedsLoadedAt = nowMs;
    } catch (err) {
      // The quote-engine may not be up yet: keep the old list and try again next tick.
      if (this.feeds.length === 0) this.log.info({ err: err instanceof Error ? err.message : String(err) }, 'price feeds not available yet');
    }
  }
}
