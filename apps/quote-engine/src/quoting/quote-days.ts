import type { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { type Clock, Periodic } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { type QuoteDayStore, postgresQuoteDayStore } from './quote-storage.repository';

export type { QuoteDayStore } from './quote-storage.repository';

const DAY_MS = 86_400_000;

export interface QuoteDaysOptions {
  intervalMs: number;
  /** QUOTE_RETENTION_SECS: a quote made now has its day this far ahead. */
  retentionSecs: number;
  /** QUOTE_GRACE_SECS: a day is kept this long past its end (the order view of an expired quote). */
  graceSecs: number;
  /** Days made beyond the furthest a quote made now can need. */
  aheadDays: number;
}

/** A day as the partitions name it. */
export function dayOf(ms: number): string {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/** Start of a `YYYY-MM-DD` day, UTC, in ms. */
function startOf(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

/**
 * The upkeep of `quotes`' days. Each run makes every day a quote made now (or within
 * `aheadDays`) can fall in, back to the oldest still in its grace, and drops each day whose end is more than the grace ago and which the
 * expiry sweep has passed: a whole partition at once, no row-by-row DELETE and no vacuum debt.
 * Both steps are idempotent; the database functions behind them serialise replicas and are one
 * transaction each, so a kill -9 at any point leaves a day made or not, dropped or not. The first
 * run happens at start, before the service answers, so the writer never meets a missing day; a
 * writer that does (the upkeep failing for days) fails its quotes as the database unavailable and
 * asks for a run at once.
 */
export class QuoteDays implements OnModuleInit, OnApplicationShutdown {
  private readonly loop: Periodic;

  constructor(
    private readonly store: QuoteDayStore,
    private readonly opts: QuoteDaysOptions,
    private readonly log: Pick<Logger, 'info' | 'warn'>,
    private readonly clock: Clock,
    private readonly close: () => Promise<void> = async () => undefined,
  ) {
    this.loop = new Periodic(
      () => this.runOnce(),
      opts.intervalMs,
      (err) => this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'quote days upkeep failed; retrying next run'),
      { firstAfterMs: opts.intervalMs, unref: true },
    );
  }

  async onModuleInit(): Promise<void> {
    try {
      await this.runOnce();
    } catch (err) {
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'quote days upkeep failed at start; retrying');
    }
    this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await this.close();
  }

  /** Asks for a run soon (a writer met a missing day). */
  kick(): void {
    void this.runOnce().catch(() => undefined);
  }

  /** The days made and dropped by this run. */
  async runOnce(): Promise<{ made: string[]; dropped: string[] }> {
    const now = this.clock.nowMs();
    const made: string[] = [];
    const last = now + this.opts.retentionSecs * 1000 + this.opts.aheadDays * DAY_MS;
    // From the oldest day still in its grace (a quote's view is served until then) to the furthest ahead.
    for (let t = Math.floor((now - this.opts.graceSecs * 1000) / DAY_MS) * DAY_MS; t <= last; t += DAY_MS) {
      const day = dayOf(t);
      if (await this.store.ensure(day)) made.push(day);
    }
    const dropped: string[] = [];
    // A day a run detached but did not drop (killed between the two) goes first.
    for (const day of await this.store.detached()) if (await this.store.drop(day)) dropped.push(day);
    const swept = (await this.store.sweptUntil())?.getTime() ?? -Infinity;
    for (const day of await this.store.days()) {
      const end = startOf(day) + DAY_MS;
      if (end + this.opts.graceSecs * 1000 > now || end > swept) continue;
      const started = performance.now();
      if (!(await this.store.detach(day))) continue;
      const detachedMs = Math.round(performance.now() - started);
      await this.store.drop(day);
      dropped.push(day);
      this.log.info(
        { day, detach_ms: detachedMs, ms: Math.round(performance.now() - started) },
        'dropped a day of quotes past retention and grace',
      );
    }
    if (made.length > 0) this.log.info({ days: made }, 'made days for quotes');
    return { made, dropped };
  }
}

/** The upkeep's own connection (the functions of migration 20261213100000_quotes_by_day do the DDL as its owner). */
export function postgresQuoteDays(databaseUrl: string, opts: QuoteDaysOptions, log: Logger, clock: Clock): QuoteDays {
  const { store, close } = postgresQuoteDayStore(databaseUrl, log);
  return new QuoteDays(store, opts, log, clock, close);
}
