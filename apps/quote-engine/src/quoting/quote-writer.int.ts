import { Code, RpcError } from '@xchain/contracts';
import { adminUrlOf, freshMigratedDatabase } from '@xchain/stack';
import type { Logger } from '@xchain/telemetry';
import { Pool, type PoolClient } from 'pg';
import { dayOf } from './quote-days';
import { quoteRow } from './quote-row.testing';
import { type QuoteRow, type QuoteWriter, postgresQuoteWriter } from './quote-writer';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Logger;

const rowOf = (n: number): QuoteRow =>
  quoteRow(`0x${'ab'.repeat(28)}${n.toString(16).padStart(8, '0')}`, {
    order: { version: '1' },
    response: { cross_chain: { quote_hash: 'x' } },
  });

jest.setTimeout(30_000);

describe('quote writer on PostgreSQL: every INSERT has a deadline', () => {
  const TIMEOUT_MS = 300;
  let url: string;
  let db: Pool;
  let writer: QuoteWriter;
  let missingDays = 0;

  beforeAll(async () => {
    url = await freshMigratedDatabase('quote-engine', 'qe_writer');
    db = new Pool({ connectionString: url, max: 2 });
    writer = postgresQuoteWriter(url, { maxInFlight: 2, maxBatch: 500, statementTimeoutMs: TIMEOUT_MS }, silent, () => missingDays++);
    // The days the rows below fall in (QuoteDays makes them in the service).
    for (const day of [dayOf(Date.now()), dayOf(Date.now() + 86_400_000), dayOf(1_900_000_000_000)])
      await db.query('SELECT quote_day_ensure($1::date)', [day]);
  }, 60_000);

  afterAll(async () => {
    await writer?.onApplicationShutdown();
    await db?.end();
  });

  const stored = async (hashes: string[]) =>
    (
      await db.query<{ quote_hash: string }>('SELECT quote_hash FROM quotes WHERE quote_hash = ANY($1::text[]) ORDER BY quote_hash', [
        hashes,
      ])
    ).rows.map((r) => r.quote_hash);

  it('fails quotes stuck behind a lock with 503 DATABASE_UNAVAILABLE after the statement timeout, stores none of them, and stores the next ones', async () => {
    const locker: PoolClient = await db.connect();
    const stuck = [rowOf(1), rowOf(2), rowOf(3)];
    let outcomes: unknown[];
    const started = Date.now();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE quotes IN ACCESS EXCLUSIVE MODE');
      outcomes = await Promise.all(
        stuck.map((r) =>
          writer.store(r).then(
            () => 'stored',
            (err: unknown) => err,
          ),
        ),
      );
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    const waited = Date.now() - started;
    for (const outcome of outcomes) {
      expect(outcome).toBeInstanceOf(RpcError);
      const status = (outcome as RpcError).status;
      expect(status.code).toBe(Code.UNAVAILABLE);
      expect(status.details).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'DATABASE_UNAVAILABLE' })]));
    }
    // The deadline, not the lock's release, ended the wait (a generous bound on a loaded machine).
    expect(waited).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(waited).toBeLessThan(5000);
    expect(await stored(stuck.map((r) => r.quoteHash))).toEqual([]);

    const next = [rowOf(4), rowOf(5)];
    await Promise.all(next.map((r) => writer.store(r)));
    expect(await stored(next.map((r) => r.quoteHash))).toEqual(next.map((r) => r.quoteHash).sort());
  });

  it('fails quotes whose day of retention has no partition with 503 DATABASE_UNAVAILABLE, asks for the days to be made, and stores none of them', async () => {
    const lost = quoteRow(`0x${'ef'.repeat(32)}`, { retainedUntil: new Date(Date.UTC(2031, 0, 1)) });
    await expect(writer.store(lost)).rejects.toMatchObject({ status: { code: Code.UNAVAILABLE } });
    expect(missingDays).toBe(1);
    expect(await stored([lost.quoteHash])).toEqual([]);
    await db.query('SELECT quote_day_ensure($1::date)', ['2031-01-01']);
    await writer.store(lost);
    expect(await stored([lost.quoteHash])).toEqual([lost.quoteHash]);
  });

  it('stores every column of every row as given, in statements of 1, of 8 and of 98 rows', async () => {
    // Two statements go out at once (one row each); everything stored meanwhile waits for the next one.
    const wave = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => {
        const k = from + i;
        return quoteRow(`0x${'cd'.repeat(28)}${k.toString(16).padStart(8, '0')}`, {
          kind: k % 2 ? 'cross_chain' : 'same_chain',
          gasless: k % 3 === 0,
          sponsorFees: k % 5 === 0,
          callerKind: k % 2 ? 'api_key' : 'keyless',
          apiKeyId: k % 2 ? `key-${k}` : null,
          partnerId: k % 4 === 1 ? `partner-${k}` : null,
          order: { version: '1', nonce: String(k), note: 'quote "text" \\ ü' },
          response: { cross_chain: { quote_hash: `h${k}`, fees: [{ amount: String(k * 1000) }], eta_seconds: k } },
          expiresAt: new Date(1_800_000_000_000 + k * 1000),
          retainedUntil: new Date(1_900_000_000_000 + k),
        });
      });
    const rows = [...wave(0, 100), ...wave(1000, 10)];
    await Promise.all(rows.slice(0, 100).map((r) => writer.store(r)));
    await Promise.all(rows.slice(100).map((r) => writer.store(r)));
    // Read back under the row's own field names, so each row must come back equal to what was stored.
    const got = await db.query<QuoteRow>(
      `SELECT quote_hash AS "quoteHash", kind, src_chain AS "srcChain", dst_chain AS "dstChain", route_type AS "routeType", gasless,
              sponsor_fees AS "sponsorFees", caller_kind AS "callerKind", api_key_id AS "apiKeyId", partner_id AS "partnerId", body->'o' AS "order", body->'r' AS response,
              expires_at AS "expiresAt", retained_until AS "retainedUntil"
       FROM quotes WHERE quote_hash = ANY($1::text[])`,
      [rows.map((r) => r.quoteHash)],
    );
    const byHash = new Map(got.rows.map((r) => [r.quoteHash, r]));
    expect(byHash.size).toBe(rows.length);
    for (const r of rows) expect(byHash.get(r.quoteHash)).toEqual(r);
  });

  it('keeps no planner statistics of the stored JSON, which no query filters on, and keeps those of the other columns', async () => {
    // ANALYZE (autovacuum runs it as the table grows) decompressed and compared a sample of both
    // JSON columns each time for statistics nothing uses: migration 20261125100000.
    // As the table's owner would (autovacuum): the service's own role may not ANALYZE (D17).
    const owner = new Pool({ connectionString: adminUrlOf(url), max: 1 });
    await owner.query('ANALYZE quotes').finally(() => owner.end());
    const analysed = await db.query<{ attname: string }>(
      "SELECT attname FROM pg_stats WHERE schemaname = 'public' AND tablename = 'quotes'",
    );
    const columns = analysed.rows.map((r) => r.attname);
    expect(columns).toEqual(expect.arrayContaining(['quote_hash', 'retained_until', 'caller_kind']));
    expect(columns).not.toContain('order');
    expect(columns).not.toContain('response');
  });
});
