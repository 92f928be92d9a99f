import type { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Periodic } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { Pool } from 'pg';

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

/** Deletes up to `limit` rows past their retention and grace; answers how many it deleted. */
export type PurgeStatement = (limit: number) => Promise<number>;

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
    const started = Date.now();
    const run: PurgeRun = { deleted: 0, statements: [] };
    try {
      for (;;) {
        const n = await this.purge(this.opts.batch);
        run.statements.push(n);
        run.deleted += n;
        if (n < this.opts.batch || this.stopped) break;
      }
      this.log.info({ deleted: run.deleted, statements: run.statements.length, ms: Date.now() - started }, 'purged quotes past retention');
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
const PURGE_ORDERS = {
  name: 'orders_purge_v1',
  text: `DELETE FROM orders WHERE quote_hash IN (
  SELECT q.quote_hash FROM orders q
  WHERE q.retained_until < now() - make_interval(secs => $2)
    AND (EXISTS (SELECT 1 FROM order_events e WHERE e.quote_hash = q.quote_hash)
      OR q.failed_at IS NOT NULL
      OR EXISTS (SELECT 1 FROM order_view_pushes p WHERE p.quote_hash = q.quote_hash AND p.status = 'expired' AND p.pending IS NULL))
  LIMIT $1 FOR UPDATE OF q SKIP LOCKED)`,
};

/** The purge's own connection to the quote-engine database, with the statement timeout set on it. */
export function postgresQuotePurge(databaseUrl: string, opts: QuotePurgeOptions, log: Logger): QuotePurge {
  const pool = new Pool({
    connectionString: databaseUrl,
    max: 1,
    connectionTimeoutMillis: 5000,
    options: `-c statement_timeout=${opts.statementTimeoutMs}`,
  });
  pool.on('error', (err) => log.warn({ err: err.message }, 'quote purge connection lost'));
  const purge: PurgeStatement = async (limit) => (await pool.query({ ...PURGE_ORDERS, values: [limit, opts.graceSecs] })).rowCount ?? 0;
  return new QuotePurge(purge, opts, log, () => pool.end());
}
