import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from 'pg';

/**
 * Applies Prisma-format migrations (`<dir>/<timestamp>_<name>/migration.sql`) and records them in
 * `_prisma_migrations` exactly as `prisma migrate deploy` does (checksum = sha256 hex of the file),
 * so either tool can take over a database the other started. Prisma's own migrate engine is a
 * binary download that this environment cannot fetch; this runner needs only node-postgres.
 */
export interface MigrationResult {
  applied: string[];
  skipped: string[];
}

const LOCK_KEY = 72707369; // any constant: serialises concurrent runners on one database

/**
 * Creates the database unless it exists; true when it created it. A database provisioned with its
 * roles (D17) is found by connecting to it, which needs no right on any other database; only a
 * missing one is created, through `postgres`, which needs a role that may create databases.
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name)) throw new Error(`unsupported database name ${name}`);
  const probe = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  try {
    await probe.connect();
    await probe.end();
    return false;
  } catch (err) {
    await probe.end().catch(() => undefined);
    if ((err as { code?: string }).code !== INVALID_CATALOG_NAME) throw err;
  }
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString(), connectionTimeoutMillis: 5000 });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount) return false;
    await admin.query(`CREATE DATABASE "${name}"`);
    return true;
  } finally {
    await admin.end();
  }
}

/** SQLSTATE of "database does not exist". */
const INVALID_CATALOG_NAME = '3D000';

export async function migrate(databaseUrl: string, migrationsDir: string): Promise<MigrationResult> {
  // A service without migrations yet still gets its own (empty) database.
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  const names = entries
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  const result: MigrationResult = { applied: [], skipped: [] };
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const done = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Map(done.rows.map((r) => [r.migration_name, r.checksum]));
    for (const name of names) {
      const sql = await readFile(join(migrationsDir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const previous = applied.get(name);
      if (previous !== undefined) {
        if (previous !== checksum) {
          throw new Error(`migration ${name} was edited after it was applied (checksum differs)`);
        }
        result.skipped.push(name);
        continue;
      }
      await client.query('BEGIN');
      try {
        const id = randomUUID();
        await client.query(`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())`, [
          id,
          checksum,
          name,
        ]);
        await client.query(sql);
        await client.query(`UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`, [id]);
        await client.query('COMMIT');
        result.applied.push(name);
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
