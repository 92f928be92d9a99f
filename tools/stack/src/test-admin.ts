import { type PgAdmin, PG_SUPERUSER, pgUrl } from './postgres-roles';
import { REDIS_ADMIN, type RedisLogin, redisUrl } from './redis-acl';
import { readSecretFile } from './credentials';

/** The variables test-servers sets for the command it runs. */
export const TEST_SERVER_VARS = {
  postgresPort: 'TEST_POSTGRES_PORT',
  postgresPasswordFile: 'TEST_POSTGRES_ADMIN_PASSWORD_FILE',
  /** The folder of its unix socket (`.s.PGSQL.<port>`). */
  postgresSocketDir: 'TEST_POSTGRES_SOCKET_DIR',
  redisPort: 'TEST_REDIS_PORT',
  redisPasswordFile: 'TEST_REDIS_ADMIN_PASSWORD_FILE',
} as const;

function port(env: NodeJS.ProcessEnv, name: string): number {
  const n = Number(env[name]);
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`${name} is not set: run the test under tools/stack test-servers (dist/tools/stack/src/test-servers.js -- …)`);
  return n;
}

function secret(env: NodeJS.ProcessEnv, name: string): string {
  const file = env[name];
  const value = file ? readSecretFile(file) : undefined;
  if (!value) throw new Error(`${name} does not name a readable password file: run the test under tools/stack test-servers`);
  return value;
}

/** The test PostgreSQL's superuser (D17: it has a password; nobody connects without one). */
export function testPostgresAdmin(env: NodeJS.ProcessEnv = process.env): PgAdmin {
  return { port: port(env, TEST_SERVER_VARS.postgresPort), password: secret(env, TEST_SERVER_VARS.postgresPasswordFile) };
}

/** A superuser URL of a database on the test PostgreSQL (for tests that set a server up, never for code under test). */
export function testPostgresAdminUrl(database = 'postgres', env: NodeJS.ProcessEnv = process.env): string {
  const admin = testPostgresAdmin(env);
  return pgUrl(admin.port, { user: PG_SUPERUSER, password: admin.password }, database);
}

/** The test Redis' administrator (its `default` user is off). */
export function testRedisAdmin(env: NodeJS.ProcessEnv = process.env): { port: number; login: RedisLogin; url: string } {
  const p = port(env, TEST_SERVER_VARS.redisPort);
  const login = { user: REDIS_ADMIN, password: secret(env, TEST_SERVER_VARS.redisPasswordFile) };
  return { port: p, login, url: redisUrl(p, login) };
}
