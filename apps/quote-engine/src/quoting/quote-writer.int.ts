import { Code, RpcError } from '@xchain/contracts';
import { freshMigratedDatabase } from '@xchain/stack';
import type { Logger } from '@xchain/telemetry';
import { Pool, type PoolClient } from 'pg';
import { quoteRow } from './quote-row.testing';
import { type QuoteRow, type QuoteWriter, postgresQuoteWriter } from './quote-writer';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Logger;

const rowOf = (n: number): QuoteRow => quoteRow(`0x${'ab'.repeat(28)}${n.toString(16).padStart(8, '0')}`, { order: { version: '1' }, response: { cross_chain: { quote_hash: 'x' } } });

jest.setTimeout(30_000);

describe('quote writer on PostgreSQL: every INSERT has a deadline', () => {
  const TIMEOUT_MS = 300;
  let url: string;
  let db: Pool;
  let writer: QuoteWriter;

  beforeAll(async () => {
    url = await freshMigratedDatabase('quote-engine', 'qe_writer');
    db = new Pool({ connectionString: url, max: 2 });
    writer = postgresQuoteWriter(url, { maxInFlight: 2, maxBatch: 500, statementTimeoutMs: TIMEOUT_MS }, silent);
  }, 60_000);

  afterAll(async () => {
    await writer?.onApplicationShutdown();
    await db?.end();
  });

  const stored = async (hashes: string[]) =>
    (await db.query<{ quote_hash: string }>('SELECT quote_hash FROM quotes WHERE quote_hash = ANY($1::text[]) ORDER BY quote_hash', [hashes])).rows.map((r) => r.quote_hash);

  it('fails quotes stuck behind a lock with 503 DATABASE_UNAVAILABLE after the statement timeout, stores none of them, and stores the next ones', async () => {
    const locker: PoolClient = await db.connect();
    const stuck = [rowOf(1), rowOf(2), rowOf(3)];
    let outcomes: unknown[];
    const started = Date.now();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE quotes IN ACCESS EXCLUSIVE MODE');
      outcomes = await Promise.all(stuck.map((r) => writer.store(r).then(() => 'stored', (err: unknown) => err)));
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
});
