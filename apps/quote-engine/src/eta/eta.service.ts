import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Clock, LOGGER } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { FulfillmentSampleRepository } from './fulfillment-sample.repository';
import { type EtaEstimate, estimateEta } from './eta-stats';
import { ETA_CONFIG, type EtaConfig } from '../config.tokens';

export type RouteType = 'same_chain_swap' | 'cross_chain';

/**
 * Recent fulfilment times per (source chain, destination chain, route type), held in memory and
 * refreshed from the database in the background, so quoting never waits on it.
 */
@Injectable()
export class EtaService implements OnModuleInit, OnApplicationShutdown {
  private samples = new Map<string, number[]>();
  private timer?: NodeJS.Timeout;
  private refreshing?: Promise<void>;

  constructor(
    @Inject(FulfillmentSampleRepository) private readonly samplesDb: FulfillmentSampleRepository,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(ETA_CONFIG) private readonly config: EtaConfig,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.config.refreshMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  estimate(src: string, dst: string, route: RouteType, fallback: bigint | undefined): EtaEstimate | undefined {
    return estimateEta(this.samples.get(key(src, dst, route)), this.config.minSamples, fallback);
  }

  /** Reloads the window now (single flight); called on a timer and after each new sample. */
  refresh(): Promise<void> {
    this.refreshing ??= this.load()
      .catch((err: unknown) => this.log.warn({ err: String(err) }, 'fulfilment samples reload failed'))
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async load(): Promise<void> {
    const since = new Date(this.clock.nowMs() - this.config.windowHours * 3600_000);
    const rows = await this.samplesDb.since(since, 50_000);
    const next = new Map<string, number[]>();
    for (const r of rows) {
      const k = key(r.srcChain, r.dstChain, r.routeType);
      const list = next.get(k) ?? [];
      if (list.length < 500) list.push(r.secs); // the 500 most recent per pair are plenty
      next.set(k, list);
    }
    this.samples = next;
  }
}

function key(src: string, dst: string, route: string): string {
  return `${src}>${dst}:${route}`;
}
