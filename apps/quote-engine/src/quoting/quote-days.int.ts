import { SystemClock } from '@xchain/service-kit';
import { freshMigratedDatabase, truncate } from '@xchain/stack';
import type { Logger } from '@xchain/telemetry';
import { Pool } from 'pg';
import { type QuoteDays, dayOf, postgresQuoteDays } from './quote-days';

const DAY = 86_400_000;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Logger;

jest.setTimeout(60_000);

/**
 * The days of `quotes` on PostgreSQL, through the service's own role (D17: it may not create or
 * drop tables; the migration's SECURITY DEFINER functions do, as the tables' owner).
 */
describe('quote days on PostgreSQL', () => {
  let url: string;
  let db: Pool;
  const upkeeps: QuoteDays[] = [];
  const RETENTION_SECS = 7 * 86_400;
  const GRACE_SECS = 86_400;
  const upkeep = () => {
    const u = postgresQuoteDays(
      url,
      { intervalMs: 600_000, retentionSecs: RETENTION_SECS, graceSecs: GRACE_SECS, aheadDays: 2 },
      silent,
      new SystemClock(),
    );
    upkeeps.push(u);
    return u;
  };
  const days = async () =>
    (await db.query<{ d: string }>(`SELECT to_char(d, 'YYYY-MM-DD') AS d FROM quote_days() AS d`)).rows.map((r) => r.d);
  const insert = (hash: string, retainedUntil: Date) =>
    db.query(
      `INSERT INTO quotes (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, body, expires_at, retained_until)
       VALUES ($1, 'cross_chain', 'ethereum', 'base', 'cross_chain', false, false, 'keyless', '{"o":{},"r":{}}', now(), $2)`,
      [hash, retainedUntil],
    );

  beforeAll(async () => {
    url = await freshMigratedDatabase('quote-engine', 'qe_days');
    db = new Pool({ connectionString: url, max: 4 });
  });
  afterAll(async () => {
    for (const u of upkeeps) await u.onApplicationShutdown();
    await db?.end();
  });
  beforeEach(() => truncate(url, 'quotes'));

  it('makes every day from the oldest in its grace to retention plus two ahead, once, with two replicas at once', async () => {
    const [a, b] = [upkeep(), upkeep()];
    const [ra, rb] = await Promise.all([a.runOnce(), b.runOnce()]);
    const now = Date.now();
    const want: string[] = [];
    for (let t = Math.floor((now - GRACE_SECS * 1000) / DAY) * DAY; t <= now + RETENTION_SECS * 1000 + 2 * DAY; t += DAY)
      want.push(dayOf(t));
    expect(await days()).toEqual(expect.arrayContaining(want));
    // Each day made by exactly one of them; a second run makes none.
    expect([...ra.made, ...rb.made].sort()).toEqual(want);
    expect((await a.runOnce()).made).toEqual([]);
    // A quote retained for the whole retention finds its day.
    await insert(`0x${'01'.repeat(32)}`, new Date(now + RETENTION_SECS * 1000));
  });

  it('drops a whole day of quotes once its end is a grace ago and the expiry sweep has passed it, and keeps the others', async () => {
    const old = dayOf(Date.now() - 3 * DAY);
    await db.query('SELECT quote_day_ensure($1::date)', [old]);
    const oldAt = new Date(Date.parse(`${old}T12:00:00Z`));
    const young = new Date(Date.now() + DAY);
    await db.query('SELECT quote_day_ensure($1::date)', [dayOf(young.getTime())]);
    await db.query(
      `INSERT INTO quotes (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, body, expires_at, retained_until)
       SELECT '0x' || lpad(to_hex(n), 64, '0'), 'cross_chain', 'ethereum', 'base', 'cross_chain', false, false, 'keyless', '{"o":{},"r":{}}', now(), $1
       FROM generate_series(1, 5000) AS n`,
      [oldAt],
    );
    await insert(`0x${'02'.repeat(32)}`, young);
    // The sweep has not passed the old day yet: kept.
    await db.query(`UPDATE quote_expiry_sweep SET retained_until = $1 WHERE name = 'expired'`, [new Date(oldAt.getTime() - 1000)]);
    const u = upkeep();
    expect((await u.runOnce()).dropped).toEqual([]);
    expect(Number((await db.query('SELECT count(*) AS n FROM quotes')).rows[0].n)).toBe(5001);
    // Once it has, the day goes whole (and days older still, made by the migration's backfill or a test, with it).
    await db.query(`UPDATE quote_expiry_sweep SET retained_until = now() WHERE name = 'expired'`);
    const run = await u.runOnce();
    expect(run.dropped).toContain(old);
    expect(await days()).not.toContain(old);
    expect((await db.query<{ quote_hash: string }>('SELECT quote_hash FROM quotes')).rows.map((r) => r.quote_hash)).toEqual([
      `0x${'02'.repeat(32)}`,
    ]);
    expect((await u.runOnce()).dropped).toEqual([]);
  });

  it('drops a day a run detached and did not drop (killed between the two) on the next run', async () => {
    const old = dayOf(Date.now() - 5 * DAY);
    await db.query('SELECT quote_day_ensure($1::date)', [old]);
    await db.query('SELECT quote_day_detach($1::date)', [old]);
    expect(await days()).not.toContain(old);
    const left = await db.query<{ d: string }>(`SELECT to_char(d, 'YYYY-MM-DD') AS d FROM quote_days_detached() AS d`);
    expect(left.rows.map((r) => r.d)).toEqual([old]);
    // An attached day is never dropped in one step (that would lock quotes for the whole unlink).
    await expect(db.query('SELECT quote_day_drop($1::date)', [dayOf(Date.now())])).rejects.toThrow(/still attached/);
    expect((await upkeep().runOnce()).dropped).toContain(old);
    expect((await db.query(`SELECT count(*) AS n FROM quote_days_detached()`)).rows[0].n).toBe('0');
  });

  it('leaves a day as it was when the drop cannot have its lock at once, instead of holding quotes up behind it', async () => {
    const old = dayOf(Date.now() - 4 * DAY);
    await db.query('SELECT quote_day_ensure($1::date)', [old]);
    await db.query(`UPDATE quote_expiry_sweep SET retained_until = now() WHERE name = 'expired'`);
    const reader = await db.connect();
    try {
      await reader.query('BEGIN');
      await reader.query(`SELECT count(*) FROM quotes WHERE retained_until < now()`); // holds a lock on every day
      await expect(upkeep().runOnce()).rejects.toThrow(/lock timeout/);
      expect(await days()).toContain(old);
      // Meanwhile quotes go on being written.
      await insert(`0x${'03'.repeat(32)}`, new Date(Date.now() + DAY));
    } finally {
      await reader.query('ROLLBACK');
      reader.release();
    }
    expect((await upkeep().runOnce()).dropped).toContain(old);
  });
});
