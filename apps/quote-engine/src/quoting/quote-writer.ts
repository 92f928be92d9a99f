import type { OnApplicationShutdown } from '@nestjs/common';
import { databaseUnavailable } from '@xchain/messaging';
import type { Logger } from '@xchain/telemetry';
import { Pool } from 'pg';

/** One row of `quotes` (created_at is the database's clock). */
export interface QuoteRow {
  quoteHash: string;
  kind: string;
  srcChain: string;
  dstChain: string;
  routeType: string;
  gasless: boolean;
  sponsorFees: boolean;
  callerKind: string;
  apiKeyId: string | null;
  partnerId: string | null;
  order: unknown;
  /** The answer without its order, which `order` holds (see stored-response.ts). */
  response: unknown;
  expiresAt: Date;
  retainedUntil: Date;
}

/** Where a batch goes: one statement, committed when it resolves. */
export interface QuoteSink {
  insert(rows: readonly QuoteRow[]): Promise<void>;
}

interface Waiting {
  row: QuoteRow;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface QuoteWriterOptions {
  /** Statements in flight at once (each on its own connection). */
  maxInFlight: number;
  /** Rows per statement at most. */
  maxBatch: number;
  /**
   * Rows that arrive while a statement is in flight wait for it and go together in the next one,
   * unless every statement in flight has been running this long (a stall): then a further
   * connection takes them. 0 (the default): a free connection takes them at once.
   */
  overflowAfterMs?: number;
  /**
   * An idle writer waits for the rest of the event-loop turn (setImmediate) before it sends, so
   * the rows of requests that arrived together (one read from NATS brings several) go in one
   * statement. Without it (the default) a lone row goes at once, and the rows right behind it
   * wait for its statement.
   */
  gatherTurn?: boolean;
}

export interface PostgresQuoteWriterOptions extends QuoteWriterOptions {
  /** Server-side limit on each INSERT; past it the batch fails as the database being unavailable. */
  statementTimeoutMs: number;
}

/** SQLSTATE of a statement cancelled, here by `statement_timeout`. */
const QUERY_CANCELED = '57014';
/** SQLSTATE of a row no partition takes (`quotes` has no day for its retained_until yet). */
const CHECK_VIOLATION = '23514';

/**
 * Group commit for stored quotes: a quote that arrives while statements are in flight waits for
 * the next one, and everything waiting then goes in a single multi-row INSERT. Each caller is
 * answered only after the statement holding its row committed, so an answered quote is stored;
 * a failed statement fails every caller in it (none of them is answered with a quote). An idle
 * writer sends at once (with `gatherTurn`, at the end of the event-loop turn), so a lone request
 * pays one insert and nothing more. With `overflowAfterMs`, a busy writer keeps to one statement
 * at a time (fewer, bigger commits: cheaper per quote) and opens another only for rows held up by
 * a statement that has run that long.
 */
export class QuoteWriter implements OnApplicationShutdown {
  private waiting: Waiting[] = [];
  /** The statements in flight, with when each was sent (performance.now()). */
  private readonly sending = new Set<{ sentAt: number }>();
  private overflowTimer?: NodeJS.Timeout;
  private overflowDue = 0;
  private gathering = false;
  private drained?: () => void;

  constructor(
    private readonly sink: QuoteSink,
    private readonly opts: QuoteWriterOptions,
    private readonly close: () => Promise<void> = async () => undefined,
  ) {}

  store(row: QuoteRow): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ row, resolve, reject });
      if (this.opts.gatherTurn && this.sending.size === 0) this.gatherThenPump();
      else this.pump();
    });
  }

  /** Lets every accepted row reach its statement, then closes the connections. */
  async onApplicationShutdown(): Promise<void> {
    if (this.sending.size > 0 || this.waiting.length > 0) await new Promise<void>((r) => (this.drained = r));
    await this.close();
  }

  private pump(): void {
    while (this.sending.size < this.opts.maxInFlight && this.waiting.length > 0) {
      const holdMs = this.sending.size > 0 ? this.overflowHoldMs() : 0;
      if (holdMs > 0) {
        this.wakeIn(holdMs);
        break;
      }
      const batch = this.waiting.splice(0, this.opts.maxBatch);
      void this.flush(batch); // adds itself to `sending` before its first await
    }
    if (this.sending.size === 0 && this.waiting.length === 0) this.drained?.();
  }

  /** One pump at the end of this event-loop turn, however many rows arrive before it. */
  private gatherThenPump(): void {
    if (this.gathering) return;
    this.gathering = true;
    setImmediate(() => {
      this.gathering = false;
      this.pump();
    });
  }

  /** How much longer rows wait for the statements in flight before another connection takes them. */
  private overflowHoldMs(): number {
    const after = this.opts.overflowAfterMs ?? 0;
    if (after <= 0) return 0;
    let youngest = -Infinity;
    for (const s of this.sending) youngest = Math.max(youngest, s.sentAt);
    return youngest + after - performance.now();
  }

  /** A pump when the hold runs out; one timer, kept unless it would fire later than this. */
  private wakeIn(ms: number): void {
    const due = performance.now() + ms;
    if (this.overflowTimer && this.overflowDue <= due) return;
    clearTimeout(this.overflowTimer);
    this.overflowDue = due;
    this.overflowTimer = setTimeout(() => {
      this.overflowTimer = undefined;
      this.pump();
    }, ms);
  }

  private async flush(batch: Waiting[]): Promise<void> {
    const statement = { sentAt: performance.now() };
    this.sending.add(statement);
    try {
      await this.sink.insert(batch.map((w) => w.row));
      for (const w of batch) w.resolve();
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      this.sending.delete(statement);
      this.pump();
    }
  }
}

/**
 * One statement text for any batch size, prepared once per connection and only bound after that:
 * the whole batch is one JSON array, turned into rows by PostgreSQL (`json_to_recordset`: the text
 * is only checked, no jsonb is built). Each quote's order and response travel inside it as its
 * `body`, encoded once and stored as that text. (Arrays unnested into rows
 * would cost the driver an array-literal escape of every JSON text; a VALUES list per batch size
 * binds n × 14 parameters.) The rows go to their day's partition of `quotes`, whose one index is
 * the hash index on quote_hash (and a BRIN on retained_until, a few pages a day).
 */
const INSERT_QUOTES = {
  name: 'quotes_insert_v5',
  text: `INSERT INTO quotes (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, api_key_id, partner_id, expires_at, retained_until, body)
SELECT quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, api_key_id, partner_id, expires_at, retained_until, body
FROM json_to_recordset($1::json) AS r(quote_hash text, kind text, src_chain text, dst_chain text, route_type text, gasless boolean, sponsor_fees boolean, caller_kind text, api_key_id text, partner_id text, expires_at timestamptz, retained_until timestamptz, body json)`,
};

function batchJson(rows: readonly QuoteRow[]): string {
  return JSON.stringify(
    rows.map((r) => ({
      quote_hash: r.quoteHash,
      kind: r.kind,
      src_chain: r.srcChain,
      dst_chain: r.dstChain,
      route_type: r.routeType,
      gasless: r.gasless,
      sponsor_fees: r.sponsorFees,
      caller_kind: r.callerKind,
      api_key_id: r.apiKeyId,
      partner_id: r.partnerId,
      expires_at: r.expiresAt.toISOString(),
      retained_until: r.retainedUntil.toISOString(),
      body: { o: r.order, r: r.response },
    })),
  );
}

/**
 * The writer's own connections to the quote-engine database. `synchronous_commit=on` on them
 * whatever the server's default: a commit returns only once its WAL is written out, so a quote
 * answered survives kill -9 of PostgreSQL too (and of this process: nothing is answered before).
 * Each INSERT is bounded by `statement_timeout`: one stuck behind a lock or a stalled server fails
 * its batch as `503 DATABASE_UNAVAILABLE` (retry shortly) instead of holding its connection, and
 * every quote queued for it, indefinitely. A cancelled INSERT stored nothing, and none of its
 * quotes is answered.
 */
export function postgresQuoteWriter(
  databaseUrl: string,
  opts: PostgresQuoteWriterOptions,
  log: Logger,
  /** A row met no day of `quotes` (QuoteDays.kick): the upkeep is asked to run at once. */
  onMissingDay: () => void = () => undefined,
): QuoteWriter {
  const pool = new Pool({
    connectionString: databaseUrl,
    max: opts.maxInFlight,
    connectionTimeoutMillis: 5000,
    options: `-c synchronous_commit=on -c statement_timeout=${Math.max(1, Math.floor(opts.statementTimeoutMs))}`,
  });
  // An idle connection dropped by the server (a restart) must not take the service down.
  pool.on('error', (err) => log.warn({ err: err.message }, 'quote writer connection lost'));
  const sink: QuoteSink = {
    insert: async (rows) => {
      try {
        await pool.query({ ...INSERT_QUOTES, values: [batchJson(rows)] });
      } catch (err) {
        const code = (err as { code?: unknown } | null)?.code;
        if (code === CHECK_VIOLATION) {
          log.warn({ rows: rows.length, err: (err as Error).message }, 'quote insert found no day for its quotes; making days');
          onMissingDay();
          throw databaseUnavailable();
        }
        if (code !== QUERY_CANCELED) throw err;
        log.warn({ rows: rows.length, timeoutMs: opts.statementTimeoutMs }, 'quote insert timed out');
        throw databaseUnavailable();
      }
    },
  };
  return new QuoteWriter(sink, opts, () => pool.end());
}
