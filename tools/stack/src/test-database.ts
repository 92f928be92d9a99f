import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { newDatabaseAccess, pgUrl, provisionDatabase } from './postgres-roles';
import { ROOT } from './services';
import { testPostgresAdmin } from './test-admin';

/** A service with a database of its own, by the folder of its migrations under prisma/. */
export type MigratedService = 'quote-engine' | 'partner-service' | 'gasless-relayer';

/**
 * A new database on the test PostgreSQL (TEST_POSTGRES_PORT) with every migration of `service`
 * applied in order, as tools/migrate applies them; its URL as the service's own role (D17: the
 * database belongs to its migrator, which applied the migrations; the role may read and write
 * rows and nothing else, exactly as the service in a stack). For integration tests that need a
 * service's real schema without starting the service.
 */
export async function freshMigratedDatabase(service: MigratedService, prefix: string): Promise<string> {
  return (await partlyMigratedDatabase(service, prefix)).url;
}

/**
 * A fresh database migrated up to (not including) the migration named `before` (all of them
 * without it), so a migration's own test can seed the schema that migration finds; `rest()` then
 * applies the others, as the migrator does. `url` is the service's role.
 */
export async function partlyMigratedDatabase(
  service: MigratedService,
  prefix: string,
  before?: string,
): Promise<{ url: string; rest: () => Promise<void> }> {
  const admin = testPostgresAdmin();
  const access = newDatabaseAccess(`${prefix}_${randomBytes(4).toString('hex')}`);
  await provisionDatabase(admin, access);
  const dir = join(ROOT, 'prisma', service, 'migrations');
  const all = readdirSync(dir)
    .filter((d) => /^\d{14}_/.test(d))
    .sort();
  const apply = async (names: string[]) => {
    const c = new Client({ connectionString: pgUrl(admin.port, access.migrator, access.database) });
    await c.connect();
    try {
      for (const m of names) await c.query(readFileSync(join(dir, m, 'migration.sql'), 'utf8'));
    } finally {
      await c.end();
    }
  };
  const cut = before === undefined ? all.length : all.indexOf(before);
  if (cut < 0) throw new Error(`no migration ${before} of ${service}`);
  await apply(all.slice(0, cut));
  return { url: pgUrl(admin.port, access.service, access.database), rest: () => apply(all.slice(cut)) };
}

/**
 * The same database as the superuser: for a test's own housekeeping that a service may not do
 * (TRUNCATE between cases), never for the code under test.
 */
export function adminUrlOf(url: string): string {
  const admin = testPostgresAdmin();
  return pgUrl(admin.port, { user: 'postgres', password: admin.password }, decodeURIComponent(new URL(url).pathname.slice(1)));
}

/** TRUNCATE `tables` (comma-separated) of the database at `url`, and the rows of other tables that reference them, as the superuser (see adminUrlOf). */
export async function truncate(url: string, tables: string): Promise<void> {
  const c = new Client({ connectionString: adminUrlOf(url) });
  await c.connect();
  try {
    await c.query(`TRUNCATE ${tables} CASCADE`);
  } finally {
    await c.end();
  }
}
