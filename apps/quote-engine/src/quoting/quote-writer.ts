import type { OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from '@xchain/telemetry';
import { type QuoteRow, type QuoteSink, postgresQuoteSink } from './quote-storage.repository';

export type { QuoteRow, QuoteSink } from './quote-storage.repository';

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
  const { sink, close } = postgresQuoteSink(databaseUrl, opts, log, onMissingDay);
  return new QuoteWriter(sink, opts, close);
}
