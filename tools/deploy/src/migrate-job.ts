import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { MigrateJobEnv } from './migrate-job-env';

/**
 * The `migrate` image's program (the Kubernetes Job and the compose one-shot): applies every
 * service's migrations to its own database, then seeds the chain and token registry. Each step is
 * the project's own tool (tools/migrate, the quote-engine's seed), run as a process with a deadline;
 * all are idempotent, so a Job retried after a crash converges.
 */
const DIST = join(__dirname, '../../..');

function run(what: string, script: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): void {
  const res = spawnSync(process.execPath, [join(DIST, script), ...args], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: timeoutMs,
  });
  if (res.error) throw new Error(`${what}: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`${what} failed (exit ${res.status ?? res.signal})`);
}

function main(): void {
  const parsed = MigrateJobEnv.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    console.error(`migrate-job: invalid environment:\n${lines.join('\n')}`);
    process.exit(2);
  }
  const env = parsed.data;
  const { QUOTE_ENGINE_DATABASE_URL: _q, PARTNER_SERVICE_DATABASE_URL: _p, GASLESS_RELAYER_DATABASE_URL: _g, ...inherited } = process.env;
  const databases: [string, string][] = [
    ['quote-engine', env.QUOTE_ENGINE_DATABASE_URL],
    ['partner-service', env.PARTNER_SERVICE_DATABASE_URL],
    ['gasless-relayer', env.GASLESS_RELAYER_DATABASE_URL],
  ];
  for (const [service, url] of databases) {
    run(`migrating ${service}`, 'tools/migrate/src/main.js', [service, url], inherited, env.MIGRATE_STEP_TIMEOUT_MS);
  }
  if (env.REGISTRY_FILE !== 'none') {
    run(
      'seeding the registry',
      'apps/quote-engine/src/seed.js',
      [env.REGISTRY_FILE],
      { ...inherited, DATABASE_URL: env.QUOTE_ENGINE_DATABASE_URL },
      env.MIGRATE_STEP_TIMEOUT_MS,
    );
  }
}

try {
  main();
} catch (err) {
  console.error(`migrate-job: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
