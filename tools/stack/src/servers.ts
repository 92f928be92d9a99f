import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type NatsUser, natsAuthorization } from './bus';
import { type Managed, launch, tcpOpen, waitFor } from './process';

/**
 * NATS (JetStream), Redis and PostgreSQL from Debian's packages, each on a loopback port with its
 * data under one folder. Used by the local stack (persistent data) and the tests (throwaway data).
 */
export interface ServerPorts {
  nats: number;
  natsMonitor: number;
  redis: number;
  postgres: number;
}

const isRoot = process.getuid?.() === 0;

function postgresBin(tool: string): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const p = join(base, v, 'bin', tool);
    if (existsSync(p)) return p;
  }
  throw new Error(`PostgreSQL's ${tool} was not found under ${base}; install the postgresql package`);
}

/** Runs a PostgreSQL tool as the postgres user when we are root (PostgreSQL refuses root). */
function asPostgres(cmd: string, args: string[]): [string, string[]] {
  return isRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

async function ensureFree(port: number, what: string, envVar: string): Promise<void> {
  if (await tcpOpen(port)) {
    throw new Error(`port ${port} for ${what} is already in use; set ${envVar} to a free port`);
  }
}

/**
 * NATS with JetStream, always with authorization (D14): only the given users may connect, each
 * limited to its permissions (see `newBus`). The configuration, passwords included, is written
 * into `dir` readable by its owner only.
 */
export async function startNats(dir: string, port: number, monitorPort: number, logFile: string | undefined, users: NatsUser[]): Promise<Managed> {
  if (users.length === 0) throw new Error('NATS needs at least one user: it never runs open');
  await ensureFree(port, 'NATS', 'NATS_PORT');
  await ensureFree(monitorPort, 'NATS monitoring', 'NATS_MONITOR_PORT');
  mkdirSync(join(dir, 'jetstream'), { recursive: true });
  const config = join(dir, 'nats.conf');
  writeFileSync(config, natsAuthorization(users), { mode: 0o600 });
  const proc = launch(
    'nats',
    'nats-server',
    ['-c', config, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'jetstream'), '-m', String(monitorPort)],
    { logFile },
  );
  await waitFor('nats-server', async () => (await fetch(`http://127.0.0.1:${monitorPort}/healthz`)).ok, 15_000, proc);
  return proc;
}

export async function startRedis(dir: string, port: number, persistent: boolean, logFile?: string): Promise<Managed> {
  await ensureFree(port, 'Redis', 'REDIS_PORT');
  mkdirSync(dir, { recursive: true });
  const args = ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--daemonize', 'no'];
  if (!persistent) args.push('--save', '', '--appendonly', 'no');
  const proc = launch('redis', 'redis-server', args, { logFile });
  await waitFor('redis-server', () => tcpOpen(port), 15_000, proc);
  return proc;
}

export async function startPostgres(dir: string, port: number, durable: boolean, logFile?: string): Promise<Managed> {
  await ensureFree(port, 'PostgreSQL', 'POSTGRES_PORT');
  const data = join(dir, 'data');
  mkdirSync(dir, { recursive: true });
  if (isRoot) chownSync(dir, postgresUid(), postgresUid());
  if (!existsSync(join(data, 'PG_VERSION'))) {
    const [cmd, args] = asPostgres(postgresBin('initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    execFileSync(cmd, args, { stdio: 'ignore' });
  }
  const [cmd, args] = asPostgres(postgresBin('postgres'), [
    '-D', data,
    '-p', String(port),
    '-k', dir,
    '-c', 'listen_addresses=127.0.0.1',
    '-c', 'max_connections=200',
    // Test databases are throwaway: skipping fsync makes them several times faster.
    ...(durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off']),
  ]);
  const proc = launch('postgres', cmd, args, { logFile });
  await waitFor('postgres', () => tcpOpen(port), 30_000, proc);
  // Accepting TCP is not yet accepting queries (startup/recovery); wait for a real answer.
  await waitFor('postgres', async () => {
    const { Client } = await import('pg');
    const c = new Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 1000 });
    await c.connect();
    await c.end();
    return true;
  }, 30_000, proc);
  return proc;
}

function postgresUid(): number {
  return Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
}

export function databaseUrl(port: number, db: string): string {
  return `postgresql://postgres@127.0.0.1:${port}/${db}`;
}
