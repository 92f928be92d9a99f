import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { newDatabaseAccess, pgUrl, provisionDatabase, testPostgresAdmin, testPostgresAdminUrl } from '@xchain/stack';
import { ensureDatabase, migrate } from './migrate';

const url = (db: string) => testPostgresAdminUrl(db);

describe('migration runner against PostgreSQL', () => {
  let dir: string;
  let db: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'migrations-'));
    db = `migrate_${randomBytes(4).toString('hex')}`;
    mkdirSync(join(dir, '20260101000000_first'));
    writeFileSync(join(dir, '20260101000000_first', 'migration.sql'), 'CREATE TABLE a (id INT PRIMARY KEY);');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the database, applies in order once, and records Prisma-compatible rows', async () => {
    expect(await ensureDatabase(url(db))).toBe(true);
    expect(await ensureDatabase(url(db))).toBe(false);
    mkdirSync(join(dir, '20260102000000_second'));
    writeFileSync(join(dir, '20260102000000_second', 'migration.sql'), 'ALTER TABLE a ADD COLUMN b TEXT;');
    expect(await migrate(url(db), dir)).toEqual({ applied: ['20260101000000_first', '20260102000000_second'], skipped: [] });
    expect(await migrate(url(db), dir)).toEqual({ applied: [], skipped: ['20260101000000_first', '20260102000000_second'] });
    const c = new Client({ connectionString: url(db) });
    await c.connect();
    const rows = await c.query('SELECT migration_name, checksum, finished_at FROM _prisma_migrations ORDER BY migration_name');
    await c.end();
    expect(rows.rows).toHaveLength(2);
    expect(rows.rows[0].checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(rows.rows[0].finished_at).not.toBeNull();
  });

  it('refuses a migration edited after it was applied, and rolls back a failing one', async () => {
    await ensureDatabase(url(db));
    await migrate(url(db), dir);
    writeFileSync(join(dir, '20260101000000_first', 'migration.sql'), 'CREATE TABLE a (id BIGINT PRIMARY KEY);');
    await expect(migrate(url(db), dir)).rejects.toThrow(/edited after it was applied/);

    const other = `migrate_${randomBytes(4).toString('hex')}`;
    await ensureDatabase(url(other));
    mkdirSync(join(dir, '20260103000000_broken'));
    writeFileSync(join(dir, '20260103000000_broken', 'migration.sql'), 'CREATE TABLE z (id INT); SELECT nonsense FROM nowhere;');
    await expect(migrate(url(other), dir)).rejects.toThrow(/20260103000000_broken failed/);
    const c = new Client({ connectionString: url(other) });
    await c.connect();
    const z = await c.query(`SELECT to_regclass('z') AS t`);
    await c.end();
    expect(z.rows[0].t).toBeNull();
  });

  it('migrates a provisioned database as its migrator; the service role gets the rows of the new tables and nothing else (D17)', async () => {
    const admin = testPostgresAdmin();
    const access = newDatabaseAccess(db);
    await provisionDatabase(admin, access);
    const asMigrator = pgUrl(admin.port, access.migrator, db);
    // The migrator may not even connect to `postgres`: the database is found by connecting to it.
    expect(await ensureDatabase(asMigrator)).toBe(false);
    expect(await migrate(asMigrator, dir)).toEqual({ applied: ['20260101000000_first'], skipped: [] });
    const c = new Client({ connectionString: pgUrl(admin.port, access.service, db) });
    await c.connect();
    try {
      await c.query('INSERT INTO a (id) VALUES (1)');
      await c.query('UPDATE a SET id = 2');
      expect((await c.query('SELECT id FROM a')).rows).toEqual([{ id: 2 }]);
      await c.query('DELETE FROM a');
      for (const sql of ['TRUNCATE a', 'DROP TABLE a', 'ALTER TABLE a ADD COLUMN x INT', 'CREATE TABLE b (id INT)']) {
        await expect(c.query(sql)).rejects.toMatchObject({ code: expect.stringMatching(/^42501$/) });
      }
    } finally {
      await c.end();
    }
  });
});
