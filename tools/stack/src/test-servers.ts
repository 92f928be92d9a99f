import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './process';
import { startPostgres, startRedis } from './servers';
import { ROOT } from './services';

/**
 * `test-servers -- <command…>`: starts a throwaway PostgreSQL and Redis on free loopback ports,
 * runs the command with TEST_POSTGRES_PORT and TEST_REDIS_PORT set, then stops both and deletes
 * their data, whatever the command's outcome. Exits with the command's exit code.
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
  const [pg, redis] = await Promise.all([
    startPostgres(join(dir, 'postgres'), pgPort, false, join(dir, 'postgres.log')),
    startRedis(join(dir, 'redis'), redisPort, false, join(dir, 'redis.log')),
  ]);
  console.log(`[test-servers] PostgreSQL :${pgPort} and Redis :${redisPort} ready in ${Date.now() - started} ms`);
  const stopAll = async () => {
    await Promise.all([pg.stop(), redis.stop()]);
    rmSync(dir, { recursive: true, force: true });
  };
  const code = await new Promise<number>((resolve) => {
    const child = spawn(cmd[0]!, cmd.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, TEST_POSTGRES_PORT: String(pgPort), TEST_REDIS_PORT: String(redisPort) },
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
