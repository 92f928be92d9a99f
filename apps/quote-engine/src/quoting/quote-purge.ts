import type { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Periodic } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { type PurgeStatement, postgresPurgeStatement } from './quote-storage.repository';

export type { PurgeStatement } from './quote-storage.repository';

export interface QuotePurgeOptions {
  /** Pause between the end of one run and the start of the next. */
  intervalMs: number;
  /** Rows one DELETE removes at most, so no statement holds many locks or writes much WAL at once. */
  batch: number;
  /** A statement running longer than this is cancelled by the server (the run stops and retries next time). */
  statementTimeoutMs: number;
  /** QUOTE_GRACE_SECS: how long past `retained_until` a quote's order view is still served. */
  graceSecs: number;
}

/** What one run did: rows deleted by each statement, in order. */
export interface PurgeRun {
  deleted: number;
  statements: number[];
}

/**
 * Orders (quotes seen used: issue 45) past `retained_until` and the grace after it are nobody's business any more (GetQuote
 * answers NOT_FOUND past retention, the order view past the grace), so they are deleted once nothing
 * is left to tell about them: the order was deposited, its relay failed (D18), or its `expired` view was pushed (the expiry
 * sweep does it during the grace). They are deleted in bounded batches: each DELETE takes
 * at most `batch` rows, chosen with SKIP LOCKED so that two replicas purging at once, or a row a
 * writer holds, never make a statement wait. A run repeats the statement until one comes back
 * short. Their order events and order-view pushes go with them (ON DELETE CASCADE); fulfilment
 * samples have no reference to quotes and stay, as the ETA needs them. Runs never overlap: the
 * next is scheduled only when one has ended.
 */
export class QuotePurge implements OnModuleInit, OnApplicationShutdown {
  private readonly loop: Periodic;
  private stopped = false;

  constructor(
    private readonly purge: PurgeStatement,
    private readonly opts: QuotePurgeOptions,
    private readonly log: Logger,
    private readonly close: () => Promise<void> = async () => undefined,
  ) {
    // A failed run has logged itself (runOnce).
    this.loop = new Periodic(
      () => this.runOnce(),
      opts.intervalMs,
      () => undefined,
      { firstAfterMs: opts.intervalMs, unref: true },
    );
  }

  onModuleInit(): void {
    this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    await this.close();
  }

  /** One run: batches until a short one (or shutdown). A failed statement ends the run and is thrown. */
  async runOnce(): Promise<PurgeRun> {
    const started = performance.now();
    const run: PurgeRun = { deleted: 0, statements: [] };
    try {
      for (;;) {
        const n = await this.purge(this.opts.batch);
        run.statements.push(n);
        run.deleted += n;
        if (n < this.opts.batch || this.stopped) break;
      }
      this.log.info(
        { deleted: run.deleted, statements: run.statements.length, ms: Math.round(performance.now() - started) },
        'purged quotes past retention',
      );
      return run;
    } catch (err) {
      this.log.warn(
        { deleted: run.deleted, statements: run.statements.length, err: err instanceof Error ? err.message : String(err) },
        'quote purge failed; retrying next run',
      );
      throw err;
    }
  }
}

/** Any `limit` orders past retention and grace, deposited, told `expired` or `failed` (which ones first does not matter: all of them go). */
/** The purge's own connection to the quote-engine database, with the statement timeout set on it. */
export function postgresQuotePurge(databaseUrl: string, opts: QuotePurgeOptions, log: Logger): QuotePurge {
  const { purge, close } = postgresPurgeStatement(databaseUrl, opts, log);
  return new QuotePurge(purge, opts, log, close);
}
