import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CREDENTIAL_FILES, credentialsDir } from './credentials';
import { freePort } from './process';
import { startPostgres, startRedis } from './servers';
import { ROOT } from './services';
import { TEST_SERVER_VARS } from './test-admin';

/**
 * `test-servers -- <command…>`: starts a throwaway PostgreSQL and Redis on free loopback ports,
 * runs the command with TEST_POSTGRES_PORT and TEST_REDIS_PORT set, and where their
 * administrators' passwords are (TEST_POSTGRES_ADMIN_PASSWORD_FILE, TEST_REDIS_ADMIN_PASSWORD_FILE:
 * 0600 files; read them with `testPostgresAdmin()`, `testRedisAdmin()`), then stops both and
 * deletes their data, whatever the command's outcome. Exits with the command's exit code.
 */
async function main(): Promise<number> {
  const sep = process.argv.indexOf('--');
  const cmd = sep >= 0 ? process.argv.slice(sep + 1) : [];
  if (cmd.length === 0) {
    console.error('usage: test-servers -- <command> [args…]');
    return 2;
  }
  const dir = join(ROOT, '.test-data', `run-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const [pgPort, redisPort] = [await freePort(), await freePort()];
  const started = Date.now();
  const pgPasswordFile = join(credentialsDir(dir), CREDENTIAL_FILES.postgresAdmin);
  const redisPasswordFile = join(credentialsDir(dir), CREDENTIAL_FILES.redisAdmin);
  const [pg, redis] = await Promise.all([
    startPostgres(join(dir, 'postgres'), pgPort, false, join(dir, 'postgres.log'), pgPasswordFile),
    startRedis(join(dir, 'redis'), redisPort, false, join(dir, 'redis.log'), redisPasswordFile),
  ]);
  console.log(`[test-servers] PostgreSQL :${pgPort} and Redis :${redisPort} ready in ${Date.now() - started} ms`);
  const stopAll = async () => {
    await Promise.all([pg.stop(), redis.stop()]);
    rmSync(dir, { recursive: true, force: true });
  };
  const code = await new Promise<number>((resolve) => {
    const child = spawn(cmd[0]!, cmd.slice(1), {
      stdio: 'inherit',
      env: {
        ...process.env,
        [TEST_SERVER_VARS.postgresPort]: String(pgPort),
        [TEST_SERVER_VARS.postgresPasswordFile]: pgPasswordFile,
        [TEST_SERVER_VARS.postgresSocketDir]: join(dir, 'postgres'),
        [TEST_SERVER_VARS.redisPort]: String(redisPort),
        [TEST_SERVER_VARS.redisPasswordFile]: redisPasswordFile,
      },
    });
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  });
  await stopAll();
  return code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`[test-servers] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
