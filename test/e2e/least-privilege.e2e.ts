import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Devnet, startDevnet } from '@xchain/devnet';
import {
  CREDENTIAL_FILES,
  ROOT,
  TEST_SERVER_VARS,
  credentialsDir,
  freePort,
  freeStackPorts,
  launch,
  newBus,
  startNats,
  waitFor,
} from '@xchain/stack';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

jest.setTimeout(240_000);

/**
 * D17 from outside: what a local user without privileges (uid 65534, `nobody`) tried against a
 * running stack, each attempt refused, each refusal checked for its reason (a password, a right),
 * next to the same call with the right credentials going through, so a refusal for any other
 * reason (a path, a typo) would not pass.
 */
interface Run {
  code: number;
  out: string;
}

const NOBODY = 'nobody';

/** Runs a program as `nobody` (runuser drops root's uid and groups; the environment is only `env`). */
function asNobody(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'runuser',
      ['-u', NOBODY, '--', cmd, ...args],
      { cwd: tmpdir(), env: { PATH: process.env['PATH'], ...env }, timeout: 20_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

const psql = (target: string[], sql: string, env: NodeJS.ProcessEnv = {}) =>
  asNobody('psql', [...target, '-w', '-X', '-A', '-t', '-c', sql], env);
const redisCli = (port: number, login: { user: string; password: string } | undefined, ...command: string[]) =>
  asNobody('redis-cli', [
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    ...(login ? ['--user', login.user, '--pass', login.password, '--no-auth-warning'] : []),
    ...command,
  ]);

/** The loopback TCP ports a process listens on (from `ss`, which names the owner of each socket). */
function listeningPorts(pid: number): number[] {
  const out = execFileSync('ss', ['-H', '-ltnp'], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.includes(`pid=${pid},`))
    .map((l) => Number(l.split(/\s+/)[3]!.split(':').pop()))
    .sort((a, b) => a - b);
}

describe('least privilege on PostgreSQL, Redis and the bus (D17), tried as an unprivileged local user', () => {
  let e2e: E2eStack;
  const pgPort = () => e2e.ports.postgres;
  const db = (name: string) => e2e.stack.databases.get(name)!;
  const redisUser = (service: string) => e2e.stack.redisAcl.find((u) => u.service === service)!;
  const tcp = (user: string, database: string) => ['-h', '127.0.0.1', '-p', String(pgPort()), '-U', user, '-d', database];

  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('this suite switches to the nobody user with runuser: run it as root (CI does)');
    e2e = await startE2eStack();
  });
  afterAll(async () => {
    await e2e?.stop();
  });

  it('refuses psql as the superuser postgres without its password, over TCP and over the unix socket', async () => {
    const overTcp = await psql(tcp('postgres', 'postgres'), 'SELECT 1');
    expect(overTcp).toEqual({ code: 2, out: expect.stringContaining('no password supplied') });
    const socketDir = process.env[TEST_SERVER_VARS.postgresSocketDir]!;
    expect(existsSync(join(socketDir, `.s.PGSQL.${pgPort()}`))).toBe(true);
    const overSocket = await psql(['-h', socketDir, '-p', String(pgPort()), '-U', 'postgres', '-d', 'postgres'], 'SELECT 1');
    expect(overSocket).toEqual({ code: 2, out: expect.stringContaining('no password supplied') });
    // Nor with a guess.
    const guessed = await psql(tcp('postgres', 'postgres'), 'SELECT 1', { PGPASSWORD: 'postgres' });
    expect(guessed).toEqual({ code: 2, out: expect.stringContaining('password authentication failed for user "postgres"') });
  });

  it("refuses psql as another service's role without its password or with a wrong one; its own password lets it in", async () => {
    const ps = db('partner_service');
    expect(await psql(tcp(ps.service.user, ps.database), 'SELECT count(*) FROM partners')).toEqual({
      code: 2,
      out: expect.stringContaining('no password supplied'),
    });
    expect(
      await psql(tcp(ps.service.user, ps.database), 'SELECT count(*) FROM partners', { PGPASSWORD: `${ps.service.password}x` }),
    ).toEqual({
      code: 2,
      out: expect.stringContaining(`password authentication failed for user "${ps.service.user}"`),
    });
    expect(await psql(tcp(ps.service.user, ps.database), 'SELECT count(*) FROM partners', { PGPASSWORD: ps.service.password })).toEqual({
      code: 0,
      out: '0\n',
    });
  });

  it("refuses COPY … FROM PROGRAM to a service's own role, with its real password: it is no superuser and may not run server programs", async () => {
    const ps = db('partner_service');
    const marker = join(tmpdir(), `privilege-pwned-${randomBytes(4).toString('hex')}`);
    const copy = await psql(tcp(ps.service.user, ps.database), `COPY ledger_entries FROM PROGRAM 'touch ${marker}'`, {
      PGPASSWORD: ps.service.password,
    });
    expect(copy).toEqual({
      code: 1,
      out: expect.stringContaining(
        'must be superuser or have privileges of the pg_execute_server_program role to COPY to or from an external program',
      ),
    });
    expect(existsSync(marker)).toBe(false);
    const rights = await psql(
      tcp(ps.service.user, ps.database),
      "SELECT rolsuper, rolcreaterole, rolcreatedb, pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER'), pg_has_role(current_user, 'pg_read_server_files', 'MEMBER') FROM pg_roles WHERE rolname = current_user",
      { PGPASSWORD: ps.service.password },
    );
    expect(rights).toEqual({ code: 0, out: 'f|f|f|f|f\n' });
    // The table is the service's to write rows in, never to change or empty.
    for (const sql of ['TRUNCATE ledger_entries', 'ALTER TABLE ledger_entries DISABLE TRIGGER USER', 'DROP TABLE ledger_entries']) {
      expect(await psql(tcp(ps.service.user, ps.database), sql, { PGPASSWORD: ps.service.password })).toEqual({
        code: 1,
        out: expect.stringMatching(/must be owner|permission denied/),
      });
    }
  });

  it("refuses a service's own credentials on another service's database and on postgres", async () => {
    const qe = db('quote_engine');
    const ps = db('partner_service');
    for (const target of [ps.database, 'postgres', 'template1']) {
      expect(await psql(tcp(qe.service.user, target), 'SELECT 1', { PGPASSWORD: qe.service.password })).toEqual({
        code: 2,
        out: expect.stringContaining(`permission denied for database "${target}"`),
      });
    }
    // The migrator of one database is no key to another either.
    expect(await psql(tcp(qe.migrator.user, ps.database), 'SELECT 1', { PGPASSWORD: qe.migrator.password })).toEqual({
      code: 2,
      out: expect.stringContaining(`permission denied for database "${ps.database}"`),
    });
  });

  it('refuses Redis without credentials', async () => {
    for (const command of [
      ['GET', 'x'],
      ['KEYS', '*'],
      ['CONFIG', 'GET', 'requirepass'],
    ]) {
      expect(await redisCli(e2e.ports.redis, undefined, ...command)).toEqual({
        code: 0,
        out: expect.stringMatching(/^NOAUTH Authentication required/),
      });
    }
    expect(await redisCli(e2e.ports.redis, { user: 'default', password: 'guess' }, 'PING')).toEqual({
      code: expect.any(Number),
      out: expect.stringMatching(/WRONGPASS|AUTH failed/),
    });
  });

  it("refuses a service's Redis user the keys of another service and every command beyond its own", async () => {
    const gateway = redisUser('gateway');
    const relayer = redisUser('gasless-relayer');
    const partner = redisUser('partner-service');
    const prefixes = {
      rl: e2e.stack.env['RATE_LIMIT_PREFIX']!,
      rq: e2e.stack.env['RELAY_QUEUE_PREFIX']!,
      wh: e2e.stack.env['WEBHOOK_QUEUE_PREFIX']!,
    };
    // The credentials work: each user does what its service does on its own keys.
    expect(await redisCli(e2e.ports.redis, gateway.login, 'SET', `${prefixes.rl}:probe`, '1', 'EX', '60')).toEqual({
      code: 0,
      out: 'OK\n',
    });
    expect(await redisCli(e2e.ports.redis, partner.login, 'HSET', `${prefixes.wh}:partner-webhooks:probe`, 'a', '1')).toEqual({
      code: 0,
      out: '1\n',
    });
    const refused = [
      [gateway.login, 'SET', `${prefixes.wh}:partner-webhooks:probe`, 'x'],
      [gateway.login, 'PTTL', `${prefixes.rq}:relay-base-0x0:wait`],
      [gateway.login, 'EVAL', "return redis.call('hgetall', KEYS[1])", '1', `${prefixes.wh}:partner-webhooks:probe`],
      [relayer.login, 'HGETALL', `${prefixes.wh}:partner-webhooks:probe`],
      [relayer.login, 'GET', `${prefixes.rl}:probe`],
      [partner.login, 'GET', `${prefixes.rl}:probe`],
      [partner.login, 'DEL', `${prefixes.rq}:relay-base-0x0:meta`],
    ] as const;
    for (const [login, ...command] of refused) {
      expect({ user: login.user, command: command[0], ...(await redisCli(e2e.ports.redis, login, ...command)) }).toEqual({
        user: login.user,
        command: command[0],
        code: 0,
        out: expect.stringMatching(/^(ERR.*)?NOPERM .*keys/),
      });
    }
    for (const login of [gateway.login, relayer.login, partner.login]) {
      for (const command of [
        ['KEYS', '*'],
        ['SCAN', '0'],
        ['FLUSHALL'],
        ['CONFIG', 'GET', '*'],
        ['ACL', 'LIST'],
        ['MONITOR'],
        ['PUBLISH', 'x', 'y'],
        ['SCRIPT', 'FLUSH'],
      ]) {
        expect({ user: login.user, command: command.join(' '), ...(await redisCli(e2e.ports.redis, login, ...command)) }).toEqual({
          user: login.user,
          command: command.join(' '),
          code: 0,
          out: expect.stringMatching(/^NOPERM/),
        });
      }
    }
  });

  it("runs the stack's NATS without monitoring: it listens on its client port only", async () => {
    const nats = e2e.stack.servers.find((s) => s.name === 'nats')!;
    expect(listeningPorts(nats.child.pid!)).toEqual([e2e.ports.nats]);
  });

  it('binds NATS monitoring, when asked for, to loopback only', async () => {
    const dir = join(ROOT, '.test-data', `privilege-nats-${randomBytes(4).toString('hex')}`);
    const [port, monitor] = [await freePort(), await freePort()];
    const nats = await startNats(dir, port, monitor, join(dir, 'nats.log'), newBus().users);
    try {
      const lines = execFileSync('ss', ['-H', '-ltnp'], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes(`pid=${nats.child.pid},`));
      expect(lines.map((l) => l.split(/\s+/)[3]).sort()).toEqual([`127.0.0.1:${port}`, `127.0.0.1:${monitor}`].sort());
    } finally {
      await nats.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("npm start's dev tool (D17): it prints no password, and keeps each in a 0600 file nobody else reads", () => {
  let devnet: Devnet;
  let dataDir: string;
  let out = '';
  let dev: ReturnType<typeof launch> | undefined;

  beforeAll(async () => {
    devnet = await startDevnet({ chains: ['base'], fund: [], blockTimeSecs: 1 });
    dataDir = join(ROOT, '.test-data', `privilege-dev-${randomBytes(4).toString('hex')}`);
    mkdirSync(dataDir, { recursive: true });
    const ports = await freeStackPorts();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      EVM_RPC_URLS: devnet.rpcUrls,
      NATS_PORT: String(ports.nats),
      REDIS_PORT: String(ports.redis),
      POSTGRES_PORT: String(ports.postgres),
      GATEWAY_PORT: String(ports.gateway),
      QUOTE_ENGINE_PORT: String(ports['quote-engine']),
      PRICE_ORACLE_PORT: String(ports['price-oracle']),
      GASLESS_RELAYER_PORT: String(ports['gasless-relayer']),
      PARTNER_SERVICE_PORT: String(ports['partner-service']),
    };
    delete env['NATS_MONITOR_PORT'];
    delete env['NATS_PASSWORD'];
    dev = launch('dev', process.execPath, [join(ROOT, 'dist/tools/stack/src/dev.js')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    dev.child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    dev.child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    await waitFor('npm start (dev.js)', async () => out.includes('Ctrl-C stops everything'), 180_000, dev);
  });
  afterAll(async () => {
    await dev?.stop();
    await devnet?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints none of the passwords it generated, for PostgreSQL, Redis and NATS; their files are 0600 in a 0700 folder', async () => {
    const dir = credentialsDir(dataDir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const secrets = new Set<string>();
    for (const f of readdirSync(dir)) {
      expect({ f, mode: statSync(join(dir, f)).mode & 0o777 }).toEqual({ f, mode: 0o600 });
      const text = readFileSync(join(dir, f), 'utf8').trim();
      if (f === CREDENTIAL_FILES.pgpass) for (const line of text.split('\n')) secrets.add(line.split(':').at(-1)!);
      else secrets.add(text);
      // Unreadable to anyone else.
      expect(await asNobody('cat', [join(dir, f)])).toEqual({ code: 1, out: expect.stringContaining('Permission denied') });
    }
    // Every bus user's password (services' and the operator's) is in the NATS configuration.
    for (const m of readFileSync(join(dataDir, 'nats', 'nats.conf'), 'utf8').matchAll(/"password":"([^"]+)"/g)) secrets.add(m[1]!);
    // The superuser, Redis' admin, the operator, six database roles, five more bus users.
    expect(secrets.size).toBeGreaterThanOrEqual(14);
    const printed = [...secrets].filter((s) => s.length >= 16 && out.includes(s));
    expect(printed).toEqual([]);
    expect(out).not.toMatch(/NATS_PASSWORD=|postgresql:\/\/[^@\s]+:[^@\s]+@|redis:\/\/[^@\s]+:[^@\s]+@/);
    // Nor do the services' logs.
    for (const log of readdirSync(join(dataDir, 'logs'))) {
      const text = readFileSync(join(dataDir, 'logs', log), 'utf8');
      expect({ log, printed: [...secrets].filter((s) => s.length >= 16 && text.includes(s)) }).toEqual({ log, printed: [] });
    }
  });

  it('lets partner-admin find the operator password by itself, and tells where the credentials are', async () => {
    expect(out).toContain(`passwords of this run (0600 files, never printed): ${credentialsDir(dataDir)}`);
    const natsPort = /NATS_URL=nats:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1];
    const admin = await new Promise<Run>((resolve) =>
      execFile(
        process.execPath,
        [join(ROOT, 'dist/tools/partner-admin/src/main.js'), 'create-partner', '--email', 'privilege@example.com'],
        { env: { PATH: process.env['PATH'], DATA_DIR: dataDir, NATS_URL: `nats://127.0.0.1:${natsPort}` }, timeout: 20_000 },
        (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: `${stdout}${stderr}` }),
      ),
    );
    expect(admin).toEqual({ code: 0, out: expect.stringContaining('"email": "privilege@example.com"') });
  });
});
