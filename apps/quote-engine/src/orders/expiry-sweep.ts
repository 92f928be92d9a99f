import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Clock, LOGGER, Periodic } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { EXPIRY_SWEEP_TIMES } from '../config.tokens';
import { OrderUpdates, type OrderUpdatePusher } from './order-updates';
import { ExpiredOrdersRepository, type ExpiredQuotes, type SweepCursor } from './expiry.repository';

export type { ExpiredQuotes, SweepCursor } from './expiry.repository';

export interface ExpirySweepOptions {
  intervalMs: number;
  /** Quotes one page reads at most (a run reads pages until one comes back short). */
  batch: number;
  /** QUOTE_GRACE_SECS in ms: older retention ends are not looked at (their view is gone, nothing to push). */
  graceMs: number;
}

/**
 * A run starts this far before where the last one stopped: a row written with a retention end
 * already past (an operator shortening one) while a run read is still seen by the next run.
 */
const OVERLAP_MS = 60_000;

/**
 * Pushes `expired` for orders never deposited whose retention ended (D16), through the same
 * `changed()` as every other change, so the order view, SSE, ORDER_UPDATES_V1 and webhooks all get
 * it once. Once per replica is the sweep's part: each run reads only retention ends since the last
 * run (less an overlap) and from the first quote whose push failed, so a failure is retried and an
 * old one is not read again every run. Once across replicas is the pusher's: the version recorded
 * in `order_view_pushes` advances only from the one before, and the event id `<hash>:<version>` is
 * the stream's message id, so a replica racing for the same quote publishes a duplicate the stream
 * drops, fails its advance, and on its retry finds that view already pushed.
 */
export class ExpirySweep implements OnModuleInit, OnApplicationShutdown {
  private resumeAt?: SweepCursor;
  private readonly loop: Periodic;
  private stopped = false;

  constructor(
    private readonly quotes: ExpiredQuotes,
    private readonly updates: Pick<OrderUpdatePusher, 'changed'>,
    private readonly opts: ExpirySweepOptions,
    private readonly log: Pick<Logger, 'info' | 'warn'>,
    /** The order view's clock, so a quote selected as past retention is `expired` in the view it pushes. */
    private readonly clock: Clock,
  ) {
    this.loop = new Periodic(
      () => this.runOnce(),
      opts.intervalMs,
      (err) => this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'expiry sweep failed; retrying next run'),
      { firstAfterMs: opts.intervalMs, unref: true },
    );
  }

  onModuleInit(): void {
    this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
  }

  /** One run: every page of quotes to push. A failed push is logged and retried by a later run. */
  async runOnce(): Promise<{ swept: number; failed: number }> {
    const until = this.clock.now();
    const oldest = new Date(until.getTime() - this.opts.graceMs);
    let after: SweepCursor =
      this.resumeAt && this.resumeAt.retainedUntil > oldest ? this.resumeAt : { retainedUntil: oldest, quoteHash: '' };
    let firstFailed: SweepCursor | undefined;
    let swept = 0;
    let failed = 0;
    let lastErr = '';
    for (;;) {
      const page = await this.quotes.page(after, until, this.opts.batch);
      for (const q of page) {
        if (this.stopped) break;
        try {
          await this.updates.changed(q.quoteHash);
          swept++;
        } catch (err) {
          failed++;
          lastErr = err instanceof Error ? err.message : String(err);
          firstFailed ??= q;
        }
      }
      if (page.length < this.opts.batch || this.stopped) break;
      after = page[page.length - 1]!;
    }
    const next = new Date(until.getTime() - OVERLAP_MS);
    // '' sorts before every hash: the next run reads the failed quote again.
    this.resumeAt =
      firstFailed && firstFailed.retainedUntil < next
        ? { retainedUntil: firstFailed.retainedUntil, quoteHash: '' }
        : { retainedUntil: next, quoteHash: '' };
    if (failed > 0)
      this.log.warn({ swept, failed, err: lastErr }, 'expiry sweep: some expired views could not be pushed; retrying next run');
    else if (swept > 0) this.log.info({ swept }, 'expiry sweep: expired views pushed');
    return { swept, failed };
  }
}

/** The sweep as the quote-engine runs it. */
@Injectable()
export class OrderExpirySweep extends ExpirySweep {
  constructor(
    @Inject(ExpiredOrdersRepository) expired: ExpiredOrdersRepository,
    @Inject(OrderUpdates) updates: OrderUpdates,
    @Inject(LOGGER) log: Logger,
    @Inject(EXPIRY_SWEEP_TIMES) times: { intervalMs: number; graceMs: number },
    @Inject(Clock) clock: Clock,
  ) {
    super(expired, updates, { ...times, batch: 500 }, log, clock);
  }
}
