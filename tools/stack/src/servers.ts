import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { type NatsUser, natsAuthorization } from './bus';
import { newPassword, readSecretFile, writeSecretFile } from './credentials';
import { DEFAULT_USER_RULES, REDIS_ADMIN, type RedisLogin, aclFileLine, adminRules, newRedisLogin } from './redis-acl';
import { type PgAdmin, PG_SUPERUSER, adminClient, hardenCluster, scramVerifier } from './postgres-roles';
import { type Managed, launch, tcpOpen, waitFor } from './process';

/**
 * NATS (JetStream), Redis and PostgreSQL from Debian's packages, each on a loopback port with its
 * data under one folder. Used by the local stack (persistent data) and the tests (throwaway data).
 */
export interface ServerPorts {
  nats: number;
  /** NATS monitoring, on loopback; off when undefined (D17). */
  natsMonitor?: number;
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
 * into `dir` readable by its owner only. Monitoring (it lists every user and subscription, and
 * nats-server cannot put a login on it) is off unless `monitorPort` is given, and then on
 * loopback only (D17); readiness is a real client login (CONNECT, PING, PONG).
 */
export async function startNats(
  dir: string,
  port: number,
  monitorPort: number | undefined,
  logFile: string | undefined,
  users: NatsUser[],
): Promise<Managed> {
  if (users.length === 0) throw new Error('NATS needs at least one user: it never runs open');
  await ensureFree(port, 'NATS', 'NATS_PORT');
  if (monitorPort !== undefined) await ensureFree(monitorPort, 'NATS monitoring', 'NATS_MONITOR_PORT');
  mkdirSync(join(dir, 'jetstream'), { recursive: true });
  const config = join(dir, 'nats.conf');
  const monitor = monitorPort === undefined ? '' : `http: "127.0.0.1:${monitorPort}"\n`;
  writeFileSync(config, `${monitor}${natsAuthorization(users)}`, { mode: 0o600 });
  const proc = launch('nats', 'nats-server', ['-c', config, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'jetstream')], {
    logFile,
  });
  const { user, password } = users[0]!;
  await waitFor('nats-server', () => natsLogin(port, user, password), 15_000, proc);
  return proc;
}

/** True once nats-server accepts `user`'s login: its INFO, our CONNECT and PING, its PONG. */
export function natsLogin(port: number, user: string, password: string, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let buffer = '';
    let sent = false;
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      if (!sent && buffer.startsWith('INFO ') && buffer.includes('\r\n')) {
        sent = true;
        buffer = '';
        socket.write(`CONNECT ${JSON.stringify({ user, pass: password, verbose: false, pedantic: false, protocol: 1 })}\r\nPING\r\n`);
        return;
      }
      if (sent && buffer.includes('PONG\r\n')) done(true);
      else if (buffer.includes('-ERR')) done(false);
    });
  });
}

export interface RedisServer extends Managed {
  port: number;
  /** Redis' `admin` user of this run (also in `adminPasswordFile`). */
  admin: RedisLogin;
}

/**
 * Redis with ACL users only (D17): the `default` user is off, so a connection without a user and
 * password can do nothing; `admin` (a fresh password each start, in `adminPasswordFile`, 0600) adds
 * the services' users (`provisionRedisUsers`). The ACL file holds password hashes only.
 */
export async function startRedis(
  dir: string,
  port: number,
  persistent: boolean,
  logFile: string | undefined,
  adminPasswordFile: string,
  /** Users to define from the start (a test restarting a stack's Redis gives the stack's back). */
  users: readonly { login: RedisLogin; rules: string[] }[] = [],
): Promise<RedisServer> {
  await ensureFree(port, 'Redis', 'REDIS_PORT');
  mkdirSync(dir, { recursive: true });
  const admin = newRedisLogin(REDIS_ADMIN);
  writeSecretFile(adminPasswordFile, admin.password);
  const aclFile = join(dir, 'users.acl');
  const lines = [
    `user default ${DEFAULT_USER_RULES.join(' ')}`,
    `user ${admin.user} ${adminRules(admin).join(' ')}`,
    ...users.map((u) => aclFileLine(u.login, u.rules)),
  ];
  writeFileSync(aclFile, `${lines.join('\n')}\n`, { mode: 0o600 });
  chmodSync(aclFile, 0o600);
  const args = ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--daemonize', 'no', '--aclfile', aclFile];
  if (!persistent) args.push('--save', '', '--appendonly', 'no');
  const proc = launch('redis', 'redis-server', args, { logFile });
  await waitFor('redis-server', () => tcpOpen(port), 15_000, proc);
  return { ...proc, port, admin };
}

export interface PostgresServer extends Managed {
  port: number;
  /** The superuser's password (also in `adminPasswordFile`). */
  admin: PgAdmin;
}

/**
 * PostgreSQL with a password for everyone (D17): `scram-sha-256` on every TCP and unix-socket line
 * of pg_hba (rewritten at every start), the superuser's password in `adminPasswordFile` (0600, kept
 * with the data). A data folder of an older run (initialised with `trust`, no password file) is
 * brought to these rules: its superuser gets a password in single-user mode, before the server
 * listens, so there is no moment where trust holds.
 */
export async function startPostgres(
  dir: string,
  port: number,
  durable: boolean,
  logFile: string | undefined,
  adminPasswordFile: string,
): Promise<PostgresServer> {
  await ensureFree(port, 'PostgreSQL', 'POSTGRES_PORT');
  const data = join(dir, 'data');
  mkdirSync(dir, { recursive: true });
  if (isRoot) chownSync(dir, postgresUid(), postgresUid());
  let password = readSecretFile(adminPasswordFile);
  if (!existsSync(join(data, 'PG_VERSION'))) {
    password = newPassword();
    writeSecretFile(adminPasswordFile, password);
    // initdb reads the superuser's password from a file that the postgres user can read.
    const pwfile = join(dir, 'initdb.pw');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (isRoot) chownSync(pwfile, postgresUid(), postgresUid());
    try {
      const [cmd, args] = asPostgres(postgresBin('initdb'), [
        '-D',
        data,
        '-U',
        PG_SUPERUSER,
        '--auth=scram-sha-256',
        `--pwfile=${pwfile}`,
        '-E',
        'UTF8',
        '--no-sync',
      ]);
      execFileSync(cmd, args, { stdio: 'ignore' });
    } finally {
      rmSync(pwfile, { force: true });
    }
  } else if (!password) {
    password = newPassword();
    setSuperuserPassword(data, password);
    writeSecretFile(adminPasswordFile, password);
  }
  writePgHba(data);
  const [cmd, args] = asPostgres(postgresBin('postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'max_connections=200',
    '-c',
    'password_encryption=scram-sha-256',
    // Test databases are throwaway: skipping fsync makes them several times faster.
    ...(durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off']),
  ]);
  const proc = launch('postgres', cmd, args, { logFile });
  const admin: PgAdmin = { port, password };
  try {
    await waitFor('postgres', () => tcpOpen(port), 30_000, proc);
    // Accepting TCP is not yet accepting queries (startup/recovery); wait for a real answer.
    await waitFor(
      'postgres',
      async () => {
        const c = await adminClient(admin);
        await c.end();
        return true;
      },
      30_000,
      proc,
    );
    await hardenCluster(admin);
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return { ...proc, port, admin };
}

/** Every connection, over TCP or the unix socket, by anyone, proves a password. */
function writePgHba(data: string): void {
  const file = join(data, 'pg_hba.conf');
  writeFileSync(
    file,
    [
      '# Written by tools/stack at every start (D17): a SCRAM password for every role, the superuser',
      '# included, over the unix socket as over TCP. No trust, no peer.',
      'local   all   all                   scram-sha-256',
      'host    all   all   127.0.0.1/32    scram-sha-256',
      'host    all   all   ::1/128         scram-sha-256',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  if (isRoot) chownSync(file, postgresUid(), postgresUid());
}

/** Sets the superuser's password with the server stopped (single-user mode: no listener at all). */
function setSuperuserPassword(data: string, password: string): void {
  const [cmd, args] = asPostgres(postgresBin('postgres'), ['--single', '-D', data, 'postgres']);
  const res = spawnSync(cmd, args, { input: `ALTER ROLE ${PG_SUPERUSER} WITH PASSWORD '${scramVerifier(password)}'\n`, encoding: 'utf8' });
  const said = `${res.stdout ?? ''}${res.stderr ?? ''}`;
  if (res.status !== 0 || /\b(ERROR|FATAL|PANIC):/.test(said)) {
    throw new Error(
      `could not set the PostgreSQL superuser's password in ${data}: ${said.trim() || res.error?.message || `exit ${res.status}`}`,
    );
  }
}

function postgresUid(): number {
  return Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
}
