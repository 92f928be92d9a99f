import { freshMigratedDatabase, truncate } from '@xchain/stack';
import type { Logger } from '@xchain/telemetry';
import { Pool } from 'pg';
import { type PurgeRun, type QuotePurge, postgresQuotePurge } from './quote-purge';

/** A logger that keeps what it is given, so the one line per run can be checked. */
function recordingLogger(): { log: Logger; lines: { level: string; fields: Record<string, unknown>; msg: string }[] } {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => void lines.push({ level, fields, msg });
  return { log: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } as unknown as Logger, lines };
}

const hash = (tag: number, n: number) => `0x${tag.toString(16).padStart(8, '0')}${n.toString(16).padStart(56, '0')}`;

const GRACE_SECS = 3600;
/** Retention ended and the grace after it too (GRACE_SECS). */
const PAST_GRACE = '-3601 seconds';

/**
 * Inserts `count` orders retained until `now() + offset` (an interval; negative: already past),
 * each with an order view pushed with `pushed` as its status (false: none pushed).
 */
async function insertQuotes(
  db: Pool,
  tag: number,
  count: number,
  offset: string,
  pushed: string | null | false = 'expired',
): Promise<string[]> {
  const hashes = Array.from({ length: count }, (_, i) => hash(tag, i));
  await db.query(
    `INSERT INTO orders (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, "order", response, created_at, expires_at, retained_until)
     SELECT h, 'cross_chain', 'ethereum', 'base', 'cross_chain', false, false, 'keyless', '{}'::jsonb, '{}'::jsonb, now(), now(), now() + $2::interval FROM unnest($1::text[]) AS h`,
    [hashes, offset],
  );
  if (pushed !== false)
    await db.query(
      `INSERT INTO order_view_pushes (quote_hash, version, digest, status) SELECT h, 1, 'd', $2 FROM unnest($1::text[]) AS h`,
      [hashes, pushed],
    );
  return hashes;
}

async function remaining(db: Pool, hashes: string[]): Promise<string[]> {
  const { rows } = await db.query<{ quote_hash: string }>(
    'SELECT quote_hash FROM orders WHERE quote_hash = ANY($1::text[]) ORDER BY quote_hash',
    [hashes],
  );
  return rows.map((r) => r.quote_hash);
}

// Above the generous "does not hang" bounds below, so they, not Jest, report a hang.
jest.setTimeout(30_000);

describe('order purge on PostgreSQL (quotes go a day at a time: quote-days.int.ts)', () => {
  let url: string;
  let db: Pool;
  let purge: QuotePurge;
  const { log, lines } = recordingLogger();
  const BATCH = 5;

  beforeAll(async () => {
    url = await freshMigratedDatabase('quote-engine', 'qe_purge');
    db = new Pool({ connectionString: url, max: 3 });
    // A long interval: the test runs each pass itself.
    purge = postgresQuotePurge(url, { intervalMs: 600_000, batch: BATCH, statementTimeoutMs: 5000, graceSecs: GRACE_SECS }, log);
  }, 60_000);

  afterAll(async () => {
    await purge?.onApplicationShutdown();
    await db?.end();
  });

  beforeEach(async () => {
    await truncate(url, 'orders, order_events, order_view_pushes, fulfillment_samples');
    lines.length = 0;
  });

  it('deletes exactly the quotes past retention and grace, at most BATCH per statement, and logs one line with the count', async () => {
    const expired = await insertQuotes(db, 1, 12, PAST_GRACE);
    const retained = [...(await insertQuotes(db, 2, 4, '1 hour', false)), ...(await insertQuotes(db, 8, 3, '-3599 seconds'))];

    const run = await purge.runOnce();

    expect(run).toEqual<PurgeRun>({ deleted: 12, statements: [5, 5, 2] });
    expect(await remaining(db, expired)).toEqual([]);
    expect(await remaining(db, retained)).toEqual(retained);
    const logged = lines.filter((l) => l.msg === 'purged quotes past retention');
    expect(logged).toHaveLength(1);
    expect(logged[0]!.fields).toMatchObject({ deleted: 12, statements: 3 });

    // Nothing left to purge: one short (empty) statement, nothing deleted.
    expect(await purge.runOnce()).toEqual<PurgeRun>({ deleted: 0, statements: [0] });
    expect(await remaining(db, retained)).toEqual(retained);
  });

  it('stops after a full batch followed by an empty one when the expired count is a multiple of BATCH', async () => {
    await insertQuotes(db, 3, 2 * BATCH, PAST_GRACE);
    expect(await purge.runOnce()).toEqual<PurgeRun>({ deleted: 2 * BATCH, statements: [BATCH, BATCH, 0] });
  });

  it('takes order events and order-view pushes with their quote, and keeps fulfilment samples (the ETA needs them)', async () => {
    const [gone] = await insertQuotes(db, 4, 1, PAST_GRACE, false);
    const [kept] = await insertQuotes(db, 5, 1, '1 hour', false);
    for (const h of [gone!, kept!]) {
      await db.query(
        `INSERT INTO order_events (quote_hash, type, chain, tx_hash, occurred_at) VALUES ($1, 'deposited', 'ethereum', '0xaa', now())`,
        [h],
      );
      await db.query(`INSERT INTO order_view_pushes (quote_hash, version, digest, status) VALUES ($1, 1, 'd', 'deposited')`, [h]);
      await db.query(
        `INSERT INTO fulfillment_samples (quote_hash, src_chain, dst_chain, route_type, secs, fulfilled_at) VALUES ($1, 'ethereum', 'base', 'cross_chain', 42, now())`,
        [h],
      );
    }

    expect((await purge.runOnce()).deleted).toBe(1);

    const count = async (table: string) =>
      (await db.query<{ quote_hash: string }>(`SELECT quote_hash FROM ${table} ORDER BY quote_hash`)).rows.map((r) => r.quote_hash);
    expect(await count('order_events')).toEqual([kept]);
    expect(await count('order_view_pushes')).toEqual([kept]);
    expect(await count('fulfillment_samples')).toEqual([gone, kept].sort());
  });

  // D16: a quote never deposited is `expired` once its retention ends; the row must outlive that
  // push (the sweep reads it during the grace), or webhooks and streams would never hear of it.
  it('keeps a quote past retention and grace until its expired view was pushed, and one in its grace even then', async () => {
    const [never] = await insertQuotes(db, 9, 1, PAST_GRACE, false);
    const [quotedOnly] = await insertQuotes(db, 10, 1, PAST_GRACE, 'quoted');
    const [before] = await insertQuotes(db, 11, 1, PAST_GRACE, null); // pushed before the status was kept
    const [inGrace] = await insertQuotes(db, 12, 1, '-3599 seconds', 'expired');
    const all = [never!, quotedOnly!, before!, inGrace!];

    expect((await purge.runOnce()).deleted).toBe(0);
    expect(await remaining(db, all)).toEqual([...all].sort());

    // The sweep pushes expired for two of them: those go, the others stay.
    await db.query(`INSERT INTO order_view_pushes (quote_hash, version, digest, status) VALUES ($1, 1, 'd', 'expired')`, [never]);
    await db.query(`UPDATE order_view_pushes SET version = 2, status = 'expired' WHERE quote_hash = $1`, [quotedOnly]);
    expect((await purge.runOnce()).deleted).toBe(2);
    expect(await remaining(db, all)).toEqual([before!, inGrace!].sort());
  });

  it('skips an expired quote another transaction holds instead of waiting for it, and takes it on a later run', async () => {
    const expired = await insertQuotes(db, 6, 3, PAST_GRACE);
    const holder = await db.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM orders WHERE quote_hash = $1 FOR UPDATE', [expired[0]]);
      // Waiting for the held row would last until the COMMIT below, which only comes after: the run
      // finishing at all (with 2 deleted) is the proof. The bound just turns a hang into a clear
      // failure before the test's timeout; it is generous, not a speed check.
      const started = Date.now();
      const run = await purge.runOnce();
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(run.deleted).toBe(2);
      expect(await remaining(db, expired)).toEqual([expired[0]]);
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    expect((await purge.runOnce()).deleted).toBe(1);
    expect(await remaining(db, expired)).toEqual([]);
  });

  it('fails a statement that outlives the statement timeout instead of hanging, and logs the failure', async () => {
    const slow = postgresQuotePurge(url, { intervalMs: 600_000, batch: BATCH, statementTimeoutMs: 200, graceSecs: GRACE_SECS }, log);
    await insertQuotes(db, 7, 1, PAST_GRACE);
    const locker = await db.connect();
    try {
      // An exclusive table lock makes the DELETE wait (SKIP LOCKED skips rows, not table locks).
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE orders IN ACCESS EXCLUSIVE MODE');
      // The error names the statement timeout; the bound (generous) only proves the run ended.
      const started = Date.now();
      await expect(slow.runOnce()).rejects.toThrow(/statement timeout/);
      expect(Date.now() - started).toBeLessThan(15_000);
      await locker.query('ROLLBACK');
    } finally {
      locker.release();
      await slow.onApplicationShutdown();
    }
    expect(lines.some((l) => l.level === 'warn' && l.msg === 'quote purge failed; retrying next run')).toBe(true);
  });
});

/**
 * Soak: orders with a short retention are stored at a steady rate for
 * QUOTE_PURGE_SOAK_SECS (default 16), each with its `expired` view already pushed (as the expiry
 * sweep leaves it) and no grace, while the purge runs on its own timer every second. Without
 * the purge the table would hold every row written; with it the count levels off near
 * rate × (retention + interval). Prints the count each second.
 */
describe('order purge soak: the table stops growing', () => {
  const SOAK_SECS = Number(process.env['QUOTE_PURGE_SOAK_SECS'] ?? 16);
  const RETENTION_SECS = 2;
  const INTERVAL_MS = 1000;
  const PER_TICK = 50;
  const TICK_MS = 100; // 500 quotes a second

  it(`levels off while quotes are written for ${SOAK_SECS} s`, async () => {
    const url = await freshMigratedDatabase('quote-engine', 'qe_purge_soak');
    const db = new Pool({ connectionString: url, max: 1 });
    const { log, lines } = recordingLogger();
    const purge = postgresQuotePurge(url, { intervalMs: INTERVAL_MS, batch: 200, statementTimeoutMs: 5000, graceSecs: 0 }, log);
    purge.onModuleInit();

    let written = 0;
    const counts: number[] = [];
    const started = Date.now();
    try {
      let nextSample = started + 1000;
      while (Date.now() - started < SOAK_SECS * 1000) {
        const from = written;
        written += PER_TICK;
        const hashes = Array.from({ length: PER_TICK }, (_, i) => hash(0xabc, from + i));
        await db.query(
          `INSERT INTO orders (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, "order", response, created_at, expires_at, retained_until)
           SELECT h, 'cross_chain', 'ethereum', 'base', 'cross_chain', false, false, 'keyless', '{}'::jsonb, '{}'::jsonb, now(), now(), now() + make_interval(secs => $2) FROM unnest($1::text[]) AS h`,
          [hashes, RETENTION_SECS],
        );
        await db.query(
          `INSERT INTO order_view_pushes (quote_hash, version, digest, status) SELECT h, 1, 'd', 'expired' FROM unnest($1::text[]) AS h`,
          [hashes],
        );
        if (Date.now() >= nextSample) {
          counts.push(Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM orders')).rows[0]!.n));
          nextSample += 1000;
        }
        await new Promise((r) => setTimeout(r, TICK_MS));
      }
    } finally {
      await purge.onApplicationShutdown();
    }
    await db.end();

    const runs = lines.filter((l) => l.msg === 'purged quotes past retention');
    const purged = runs.reduce((sum, l) => sum + Number(l.fields['deleted']), 0);
    process.stdout.write(
      `[soak] ${written} orders written in ${SOAK_SECS} s (retention ${RETENTION_SECS} s, purge every ${INTERVAL_MS} ms), ${runs.length} runs purged ${purged}\n` +
        `[soak] rows each second: ${counts.join(' ')}\n`,
    );

    const rate = written / SOAK_SECS;
    // Steady state: rows younger than retention plus up to one interval (and one slow run) of expired ones.
    const ceiling = Math.ceil(rate * (RETENTION_SECS + (2 * INTERVAL_MS) / 1000 + 1));
    const secondHalf = counts.slice(Math.floor(counts.length / 2));
    expect(counts.length).toBeGreaterThanOrEqual(SOAK_SECS - 2);
    expect(Math.max(...secondHalf)).toBeLessThanOrEqual(ceiling);
    // Levelled off: the last samples are no higher than the peak of the first half's settled part.
    expect(Math.max(...counts.slice(-3))).toBeLessThanOrEqual(
      Math.max(...counts.slice(RETENTION_SECS + 1, Math.floor(counts.length / 2))) * 1.5,
    );
    expect(written).toBeGreaterThan(3 * ceiling);
    expect(purged).toBeGreaterThan(written - ceiling - rate);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
  }, 120_000);
});
