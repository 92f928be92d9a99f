import { resolve } from 'node:path';
import { ensureDatabase, migrate } from './migrate';

/** `node dist/tools/migrate/src/main.js <service> <database-url>`: creates the database if needed and migrates it. */
async function main(): Promise<void> {
  const [service, url] = process.argv.slice(2);
  if (!service || !url) {
    console.error('usage: migrate <service> <database-url>   (migrations under prisma/<service>/migrations)');
    process.exit(2);
  }
  const dir = resolve(__dirname, '../../../../prisma', service, 'migrations');
  const created = await ensureDatabase(url);
  const result = await migrate(url, dir);
  console.log(JSON.stringify({ service, database_created: created, applied: result.applied, already_applied: result.skipped.length }));
}

main().catch((err: unknown) => {
  console.error(`migrate: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
