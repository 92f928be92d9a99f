import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { openDb } from './db.providers';
import { parseRegistryFile } from './registry/registry-file';
import { RegistryRepository } from './registry/registry.repository';

/** Operator command: `node dist/apps/quote-engine/src/seed.js [registry.json]` with DATABASE_URL set. */
async function main(): Promise<void> {
  const file = resolve(process.argv[2] ?? 'config/registry.json');
  const url = process.env['DATABASE_URL'];
  if (!url) throw new Error('DATABASE_URL is not set');
  const registry = parseRegistryFile(JSON.parse(await readFile(file, 'utf8')));
  const db = openDb(url, 2);
  try {
    console.log(JSON.stringify({ seeded: file, ...(await new RegistryRepository(db).seed(registry)) }));
  } finally {
    await db.$disconnect();
  }
}

main().catch((err: unknown) => {
  console.error(`seed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
