import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { ROOT } from './services';

/** A service with a database of its own, by the folder of its migrations under prisma/. */
export type MigratedService = 'quote-engine' | 'partner-service' | 'gasless-relayer';

/**
 * A new database on the test PostgreSQL (TEST_POSTGRES_PORT) with every migration of `service`
 * applied in order, as tools/migrate applies them; its URL. For integration tests that need a
 * service's real schema without starting the service.
 */
export async function freshMigratedDatabase(service: MigratedService, prefix: string, pgPort = Number(process.env['TEST_POSTGRES_PORT'])): Promise<string> {
  if (!Number.isInteger(pgPort) || pgPort <= 0) throw new Error('TEST_POSTGRES_PORT is not set: run the test under tools/stack test-servers');
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: `postgresql://postgres@127.0.0.1:${pgPort}/postgres` });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = `postgresql://postgres@127.0.0.1:${pgPort}/${name}`;
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const dir = join(ROOT, 'prisma', service, 'migrations');
    for (const m of readdirSync(dir).filter((d) => /^\d{14}_/.test(d)).sort()) await c.query(readFileSync(join(dir, m, 'migration.sql'), 'utf8'));
  } finally {
    await c.end();
  }
  return url;
}
