import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Clock, LOGGER, Periodic } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { EXPIRY_SWEEP_TIMES } from '../config.tokens';
import { UnusedQuotesRepository, type SweepCursor, type SweepProgress, type UnusedQuotes } from './expiry.repository';

export type { SweepProgress, UnusedQuotes } from './expiry.repository';
import { OrderUpdates, type OrderUpdatePusher } from './order-updates';

export interface QuoteExpirySweepOptions {
  intervalMs: number;
  batch: number;
  /** How long a lease holds without renewal (a replica killed mid-run hands over after this). */
  leaseMs: number;
}

/**
 * D16 for the quotes nobody used (the great majority, never an order): once a quote's retention
 * ends, `expired` is pushed once, like any change (SSE, ORDER_UPDATES_V1, webhooks). Such a quote
 * has no row of its own to record the push in: its one push has version 1 and the event id
 * `<hash>:1`, and the sweep's progress is one position in (retained_until, quote_hash) order,
 * advanced after each page is on the stream. One replica sweeps at a time (a lease in the same
 * row); a replica killed mid-page leaves the position before that page, so the next run pushes the
 * page again and the stream (message id) and webhook consumers (event id) drop the copies. A push
 * that fails stops the run there, to be retried by the next run. Quotes that became orders are
 * the order sweep's (ExpirySweep over `orders`). The day's partition is dropped only once the sweep
 * has passed it (QuoteDays).
 */
export class QuoteExpirySweep implements OnModuleInit, OnApplicationShutdown {
  private readonly loop: Periodic;
  private readonly owner = randomUUID();
  private stopped = false;

  constructor(
    private readonly quotes: UnusedQuotes,
    private readonly progress: SweepProgress,
    private readonly updates: Pick<OrderUpdatePusher, 'expiredQuote'>,
    private readonly opts: QuoteExpirySweepOptions,
    private readonly log: Pick<Logger, 'info' | 'warn'>,
    private readonly now: () => Date,
  ) {
    this.loop = new Periodic(
      () => this.runOnce(),
      opts.intervalMs,
      (err) => this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'quote expiry sweep failed; retrying next run'),
      { firstAfterMs: opts.intervalMs, unref: true },
    );
  }

  onModuleInit(): void {
    this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    await this.progress.release(this.owner).catch(() => undefined);
  }

  /** One run: pages until a short one, a failed push, a lost lease or shutdown. */
  async runOnce(): Promise<{ swept: number; failed: number; leased: boolean }> {
    let after = await this.progress.lease(this.owner, this.opts.leaseMs);
    if (!after) return { swept: 0, failed: 0, leased: false };
    const until = this.now();
    let swept = 0;
    try {
      for (;;) {
        const page = await this.quotes.page(after, until, this.opts.batch);
        for (const q of page) {
          if (this.stopped) break;
          try {
            if (await this.updates.expiredQuote(q.quoteHash)) swept++;
          } catch (err) {
            this.log.warn(
              { quote_hash: q.quoteHash, swept, err: err instanceof Error ? err.message : String(err) },
              'quote expiry sweep: expired could not be pushed; retrying next run',
            );
            return { swept, failed: 1, leased: true };
          }
          after = q;
          // Progress after each quote would be a write per quote; after each page, a kill repeats at most a page.
        }
        if (page.length < this.opts.batch && !this.stopped) {
          // Nothing more before `until`: the position moves up to it (less an overlap), so it moves on
          // without expiring quotes too, and the days behind it can be dropped. A quote only appears
          // behind it if its retention end was moved back by hand: the overlap still finds one moved
          // less than that ago.
          const upTo = { retainedUntil: new Date(until.getTime() - OVERLAP_MS), quoteHash: '' };
          if (before(after, upTo)) after = upTo;
        }
        if (!(await this.progress.advance(this.owner, after, this.opts.leaseMs))) break;
        if (page.length < this.opts.batch || this.stopped) break;
      }
      if (swept > 0) this.log.info({ swept }, 'quote expiry sweep: expired views pushed');
      return { swept, failed: 0, leased: true };
    } finally {
      // The position reached so far stands even when a push failed (the quotes before it were pushed).
      if (!this.stopped) await this.progress.advance(this.owner, after, this.opts.leaseMs).catch(() => undefined);
    }
  }
}

/** How far behind the time of a run its position stops when it ran out of quotes. */
const OVERLAP_MS = 60_000;

function before(a: SweepCursor, b: SweepCursor): boolean {
  const d = a.retainedUntil.getTime() - b.retainedUntil.getTime();
  return d < 0 || (d === 0 && a.quoteHash < b.quoteHash);
}

/** The sweep as the quote-engine runs it. */
@Injectable()
export class UnusedQuoteExpirySweep extends QuoteExpirySweep {
  constructor(
    @Inject(UnusedQuotesRepository) quotes: UnusedQuotesRepository,
    @Inject(OrderUpdates) updates: OrderUpdates,
    @Inject(LOGGER) log: Logger,
    @Inject(EXPIRY_SWEEP_TIMES) times: { intervalMs: number; graceMs: number },
    @Inject(Clock) clock: Clock,
  ) {
    super(quotes, quotes, updates, { intervalMs: times.intervalMs, batch: 500, leaseMs: Math.max(60_000, 4 * times.intervalMs) }, log, () =>
      clock.now(),
    );
  }
}
