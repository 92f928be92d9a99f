import { databaseUnavailable } from '@xchain/messaging';
import type { Logger } from '@xchain/telemetry';
import { Pool } from 'pg';

/*
 * The quote-engine's own pg connections, apart from Prisma's: the quote writer's batches, the
 * purge of orders past retention, and the upkeep of the days of `quotes`. Each opens its own pool
 * with the session settings its statements need, and is closed by its owner.
 */

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

/** SQLSTATE of a statement cancelled, here by `statement_timeout`. */
const QUERY_CANCELED = '57014';
/** SQLSTATE of a row no partition takes (`quotes` has no day for its retained_until yet). */
const CHECK_VIOLATION = '23514';

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
 * quotes is answered. A row that meets no day of `quotes` calls `onMissingDay`.
 */
export function postgresQuoteSink(
  databaseUrl: string,
  opts: { maxInFlight: number; statementTimeoutMs: number },
  log: Logger,
  onMissingDay: () => void,
): { sink: QuoteSink; close: () => Promise<void> } {
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
  return { sink, close: () => pool.end() };
}

/** Deletes up to `limit` rows past their retention and grace; answers how many it deleted. */
export type PurgeStatement = (limit: number) => Promise<number>;

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

/** The purge's own connection, with the statement timeout set on it. */
export function postgresPurgeStatement(
  databaseUrl: string,
  opts: { statementTimeoutMs: number; graceSecs: number },
  log: Logger,
): { purge: PurgeStatement; close: () => Promise<void> } {
  const pool = new Pool({
    connectionString: databaseUrl,
    max: 1,
    connectionTimeoutMillis: 5000,
    options: `-c statement_timeout=${opts.statementTimeoutMs}`,
  });
  pool.on('error', (err) => log.warn({ err: err.message }, 'quote purge connection lost'));
  const purge: PurgeStatement = async (limit) => (await pool.query({ ...PURGE_ORDERS, values: [limit, opts.graceSecs] })).rowCount ?? 0;
  return { purge, close: () => pool.end() };
}

/** The days of `quotes` (one partition each, by the UTC day of `retained_until`) as the database holds them. */
export interface QuoteDayStore {
  /** The days that have a partition, as `YYYY-MM-DD`, oldest first. */
  days(): Promise<string[]>;
  /** Makes the day's partition unless it exists; true when it made it. */
  ensure(day: string): Promise<boolean>;
  /** Detaches the day's partition from `quotes` (a catalog change, `quotes` locked for milliseconds); true when it was attached. */
  detach(day: string): Promise<boolean>;
  /** Drops a detached day and every quote in it (locks nothing the writers use); true when there was one. */
  drop(day: string): Promise<boolean>;
  /** Days detached and not dropped yet (a run cut short between the two). */
  detached(): Promise<string[]>;
  /** The expiry sweep's position (quotes that are no order and whose retention ended before it were pushed `expired`). */
  sweptUntil(): Promise<Date | undefined>;
}

/** The upkeep's own connection (the functions of migration 20261213100000_quotes_by_day do the DDL as its owner). */
export function postgresQuoteDayStore(databaseUrl: string, log: Logger): { store: QuoteDayStore; close: () => Promise<void> } {
  const pool = new Pool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 5000, options: '-c statement_timeout=30000' });
  pool.on('error', (err) => log.warn({ err: err.message }, 'quote days connection lost'));
  const store: QuoteDayStore = {
    days: async () =>
      (await pool.query<{ day: string }>(`SELECT to_char(d, 'YYYY-MM-DD') AS day FROM quote_days() AS d`)).rows.map((r) => r.day),
    ensure: async (day) => (await pool.query<{ made: boolean }>('SELECT quote_day_ensure($1::date) AS made', [day])).rows[0]!.made,
    detach: async (day) => (await pool.query<{ done: boolean }>('SELECT quote_day_detach($1::date) AS done', [day])).rows[0]!.done,
    drop: async (day) => (await pool.query<{ dropped: boolean }>('SELECT quote_day_drop($1::date) AS dropped', [day])).rows[0]!.dropped,
    detached: async () =>
      (await pool.query<{ day: string }>(`SELECT to_char(d, 'YYYY-MM-DD') AS day FROM quote_days_detached() AS d`)).rows.map((r) => r.day),
    sweptUntil: async () =>
      (await pool.query<{ at: Date }>(`SELECT retained_until AS at FROM quote_expiry_sweep WHERE name = 'expired'`)).rows[0]?.at,
  };
  return { store, close: () => pool.end() };
}
