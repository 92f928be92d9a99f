import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Bus, type TestUserSpec, newBus } from './bus';
import { CREDENTIAL_FILES, credentialsDir, writeSecretFile } from './credentials';
import { type DatabaseAccess, PG_SUPERUSER, type PgAdmin, newDatabaseAccess, pgUrl, provisionDatabase } from './postgres-roles';
import { type Managed, freePort, tcpOpen } from './process';
import {
  DEFAULT_REDIS_PREFIXES,
  REDIS_SERVICES,
  type RedisLogin,
  type RedisUser,
  newRedisLogin,
  provisionRedisUsers,
  redisServiceRules,
  redisUrl,
} from './redis-acl';
import { secretKeyFile } from './secret-key-file';
import { type NatsCluster, NATS_CLUSTER_SIZE, startNatsCluster } from './nats-cluster';
import { startNats, startPostgres, startRedis, type ServerPorts } from './servers';
import { ROOT, SERVICES, runTool, startBuiltService, type ServiceSpec } from './services';

export interface StackOptions {
  dataDir: string;
  ports: ServerPorts & Record<ServiceSpec['name'], number>;
  /** Keep data across runs (local stack) or not (tests). */
  persistent: boolean;
  /** Service logs go here (one file each); undefined → inherit this terminal. */
  logDir?: string;
  registryFile?: string;
  /**
   * Use these already running PostgreSQL/Redis (tests share one of each) instead of starting them,
   * with their administrators' passwords: the stack adds its own roles and ACL users (D17).
   */
  external?: { postgres: number; redis: number; postgresAdminPassword: string; redisAdmin: RedisLogin };
  /** Prefix of the services' database names, so several stacks can share one PostgreSQL. */
  databasePrefix?: string;
  extraEnv?: NodeJS.ProcessEnv;
  /** NATS users for test code that talks to the bus directly, each with only what it declares. */
  testUsers?: Record<string, TestUserSpec>;
  onProgress?: (line: string) => void;
  /** Run the services, migrations and seed of another built checkout (a benchmark's "before"); default this one. */
  root?: string;
  /** Instances of each service (default 1); the extra ones get free ports and logs `<name>-<i>.log`. */
  replicas?: number;
  /**
   * NATS as a three-member JetStream cluster (see nats-cluster.ts), the first member on NATS_PORT:
   * the services get every member's URL and keep streams and the prices bucket at three replicas.
   */
  natsCluster?: boolean;
}

export interface Stack {
  /** The environment shared by the services, without any credentials (see `envFor`, `bus`). */
  env: NodeJS.ProcessEnv;
  /** This run's NATS users and their passwords: each service got its own; the operator's is for partner-admin. */
  bus: Bus;
  /** Everything `service` was started with: the shared env plus its own NATS user, database role and Redis user. */
  envFor(service: ServiceSpec['name']): NodeJS.ProcessEnv;
  /** The URL of a service database (`quote_engine`, …) as that service's own role (D17). */
  databaseUrl(db: string): string;
  /** Each service database's roles (its service's and its migrator's) of this run. */
  databases: Map<string, DatabaseAccess>;
  /** Each Redis-using service's ACL user of this run with its rules (to define them again on a Redis a test restarts). */
  redisAcl: RedisUser[];
  servers: Managed[];
  /** The first instance of each service. */
  services: Map<ServiceSpec['name'], Managed>;
  /** Every instance of each service, by index (the first is also in `services`). */
  instances: Map<ServiceSpec['name'], Managed[]>;
  /** The port of each instance of each service, by index. */
  instancePorts: Map<ServiceSpec['name'], number[]>;
  /** Starts instance `index` of a service again (after a test killed it), with its port, log and environment. */
  restart(name: ServiceSpec['name'], index?: number): Promise<Managed>;
  /** The members, when started as a cluster (`natsCluster`): each can be killed and restarted. */
  natsCluster?: NatsCluster;
  stop(): Promise<void>;
}

/** Starts the servers, migrates and seeds, starts all five services, and waits until each is ready. */
export async function startStack(opts: StackOptions): Promise<Stack> {
  const say = opts.onProgress ?? (() => undefined);
  const log = (name: string) => (opts.logDir ? join(opts.logDir, `${name}.log`) : undefined);
  if (opts.logDir) mkdirSync(opts.logDir, { recursive: true });
  const servers: Managed[] = [];
  const services = new Map<ServiceSpec['name'], Managed>();
  const instances = new Map<ServiceSpec['name'], Managed[]>();
  const instancePorts = new Map<ServiceSpec['name'], number[]>();
  const envs = new Map<ServiceSpec['name'], NodeJS.ProcessEnv>();
  const replicas = opts.replicas ?? 1;
  const stop = async () => {
    // In the reverse of the start order; `services` too, where a suite may have put an instance it started itself.
    for (const { name } of [...SERVICES].reverse()) {
      const running = new Set([...(instances.get(name) ?? []), ...(services.has(name) ? [services.get(name)!] : [])]);
      await Promise.all([...running].map((s) => s.stop()));
    }
    for (const s of servers.reverse()) await s.stop();
  };
  const startInstance = async (spec: ServiceSpec, index: number): Promise<Managed> => {
    const proc = await startBuiltService({
      spec,
      port: instancePorts.get(spec.name)![index]!,
      env: envs.get(spec.name)!,
      logFile: log(index === 0 ? spec.name : `${spec.name}-${index}`),
      root: opts.root,
    });
    const all = instances.get(spec.name) ?? [];
    all[index] = proc;
    instances.set(spec.name, all);
    if (index === 0) services.set(spec.name, proc);
    return proc;
  };
  const startAll = async (spec: ServiceSpec, env: NodeJS.ProcessEnv) => {
    envs.set(spec.name, env);
    const ports = [opts.ports[spec.name]];
    for (let i = 1; i < replicas; i++) ports.push(await freePort());
    instancePorts.set(spec.name, ports);
    await Promise.all(ports.map((_, i) => startInstance(spec, i)));
  };
  try {
    await ensurePortsFree(opts);
    const pgPort = opts.external?.postgres ?? opts.ports.postgres;
    const redisPort = opts.external?.redis ?? opts.ports.redis;
    const secrets = credentialsDir(opts.dataDir);
    say(opts.external ? 'starting NATS' : 'starting NATS, Redis and PostgreSQL');
    // A fresh password per user per run; each service gets only its own (D14).
    const bus = newBus(opts.testUsers);
    let pgAdmin: PgAdmin;
    let redisAdmin: RedisLogin;
    let natsCluster: NatsCluster | undefined;
    const nats: Promise<Managed[]> = opts.natsCluster
      ? startNatsCluster({ dir: join(opts.dataDir, 'nats'), port: opts.ports.nats, users: bus.users, logFile: log }).then((c) => {
          natsCluster = c;
          return c.members;
        })
      : startNats(join(opts.dataDir, 'nats'), opts.ports.nats, opts.ports.natsMonitor, log('nats'), bus.users).then((n) => [n]);
    if (opts.external) {
      servers.push(...(await nats));
      pgAdmin = { port: pgPort, password: opts.external.postgresAdminPassword };
      redisAdmin = opts.external.redisAdmin;
    } else {
      const [n, redis, pg] = await Promise.all([
        nats,
        startRedis(join(opts.dataDir, 'redis'), redisPort, opts.persistent, log('redis'), join(secrets, CREDENTIAL_FILES.redisAdmin)),
        startPostgres(
          join(opts.dataDir, 'postgres'),
          pgPort,
          opts.persistent,
          log('postgres'),
          join(secrets, CREDENTIAL_FILES.postgresAdmin),
        ),
      ]);
      servers.push(...n, redis, pg);
      pgAdmin = pg.admin;
      redisAdmin = redis.admin;
    }
    const { NATS_USER: _user, NATS_PASSWORD: _password, DATABASE_URL: _db, REDIS_URL: _redis, ...inherited } = process.env;
    const stackTag = (opts.databasePrefix ?? '').replace(/[^a-zA-Z0-9_-]/g, '');
    const base: NodeJS.ProcessEnv = {
      ...inherited,
      NATS_URL: natsCluster?.url ?? `nats://127.0.0.1:${opts.ports.nats}`,
      ...(natsCluster ? { NATS_STREAM_REPLICAS: String(NATS_CLUSTER_SIZE) } : {}),
      // Local receivers (a developer's, a test's) may take webhooks over plain http on loopback;
      // stacks sharing one Redis keep their queues apart.
      WEBHOOK_ALLOW_HTTP_LOCALHOST: 'true',
      ...(stackTag ? { WEBHOOK_QUEUE_PREFIX: `wh-${stackTag}`, RELAY_QUEUE_PREFIX: `rq-${stackTag}` } : {}),
      // The partner-service's key for webhook secrets at rest, kept with the data it encrypts.
      WEBHOOK_SECRET_KEY: inherited['WEBHOOK_SECRET_KEY'] ?? secretKeyFile(join(opts.dataDir, 'webhook-secret.key')),
      ...opts.extraEnv,
    };
    // Each service's own Redis user, limited to its key prefixes and commands (D17).
    const prefixes = {
      rateLimit: base['RATE_LIMIT_PREFIX'] ?? DEFAULT_REDIS_PREFIXES.rateLimit,
      relayQueue: base['RELAY_QUEUE_PREFIX'] ?? DEFAULT_REDIS_PREFIXES.relayQueue,
      webhookQueue: base['WEBHOOK_QUEUE_PREFIX'] ?? DEFAULT_REDIS_PREFIXES.webhookQueue,
    };
    const redisAcl: RedisUser[] = REDIS_SERVICES.map((service) => ({
      service,
      login: newRedisLogin(`${stackTag.replace(/_+$/, '')}${stackTag ? '_' : ''}${service}`),
      rules: redisServiceRules(service, prefixes),
    }));
    say('provisioning Redis users and PostgreSQL databases');
    await provisionRedisUsers(redisPort, redisAdmin, redisAcl);
    // Each service database with its own role and its migrator (D17), fresh passwords every run.
    const databases = new Map<string, DatabaseAccess>();
    for (const spec of SERVICES.filter((s) => s.database)) {
      const access = newDatabaseAccess(`${opts.databasePrefix ?? ''}${spec.database!}`);
      await provisionDatabase(pgAdmin, access);
      databases.set(spec.database!, access);
    }
    writeCredentials(secrets, pgPort, pgAdmin, [...databases.values()]);
    const dbUrl = (db: string) => {
      const access = databases.get(db);
      if (!access) throw new Error(`no service database ${db}`);
      return pgUrl(pgPort, access.service, access.database);
    };
    const envFor = (name: ServiceSpec['name']): NodeJS.ProcessEnv => {
      const spec = SERVICES.find((s) => s.name === name)!;
      const redis = redisAcl.find((u) => u.service === name);
      return {
        ...base,
        ...bus.envFor(name),
        ...(spec.database ? { DATABASE_URL: dbUrl(spec.database) } : {}),
        ...(redis ? { REDIS_URL: redisUrl(redisPort, redis.login) } : {}),
      };
    };
    for (const spec of SERVICES.filter((s) => s.database)) {
      const access = databases.get(spec.database!)!;
      say(
        `migrating ${spec.name}: ${await runTool('dist/tools/migrate/src/main.js', [spec.name, pgUrl(pgPort, access.migrator, access.database)], base, opts.root)}`,
      );
    }
    const seeded = await runTool(
      'dist/apps/quote-engine/src/seed.js',
      [opts.registryFile ?? join(opts.root ?? ROOT, 'config/registry.json')],
      { ...base, DATABASE_URL: dbUrl('quote_engine') },
      // The other build's own seeder: its schema is its own migrations' (a registry column added since would not exist there).
      opts.root,
    );
    say(`registry: ${seeded}`);
    say('starting the services');
    await Promise.all(
      SERVICES.filter((s) => s.name !== 'gateway').map(async (spec) => {
        await startAll(spec, envFor(spec.name));
        say(`${spec.name} ready on 127.0.0.1:${instancePorts.get(spec.name)!.join(', ')}`);
      }),
    );
    const gw = SERVICES.find((s) => s.name === 'gateway')!;
    await startAll(gw, envFor('gateway'));
    say(`gateway ready on 127.0.0.1:${instancePorts.get('gateway')!.join(', ')}`);
    const restart = (name: ServiceSpec['name'], index = 0) =>
      startInstance(
        SERVICES.find((s) => s.name === name)!,
        index,
      );
    return {
      env: base,
      bus,
      envFor,
      databaseUrl: dbUrl,
      databases,
      redisAcl,
      servers,
      services,
      instances,
      instancePorts,
      restart,
      ...(natsCluster ? { natsCluster } : {}),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

const PORT_VARS: Record<string, string> = {
  nats: 'NATS_PORT',
  redis: 'REDIS_PORT',
  postgres: 'POSTGRES_PORT',
  gateway: 'GATEWAY_PORT',
  'quote-engine': 'QUOTE_ENGINE_PORT',
  'price-oracle': 'PRICE_ORACLE_PORT',
  'gasless-relayer': 'GASLESS_RELAYER_PORT',
  'partner-service': 'PARTNER_SERVICE_PORT',
};

/** Checks every port before starting anything, so a taken one stops the start with nothing to undo. */
async function ensurePortsFree(opts: StackOptions): Promise<void> {
  const skip = opts.external ? new Set(['redis', 'postgres']) : new Set<string>();
  const taken: string[] = [];
  for (const [name, port] of Object.entries(opts.ports)) {
    if (port !== undefined && !skip.has(name) && (await tcpOpen(port)))
      taken.push(`port ${port} (${name}) is already in use; set ${PORT_VARS[name]} to a free port`);
  }
  if (taken.length > 0) throw new Error(taken.join('\n'));
}

/** A free loopback port for every server and service of a stack (tests, benchmarks). */
export async function freeStackPorts(): Promise<StackOptions['ports']> {
  const ports: Record<string, number> = {};
  for (const name of Object.keys(PORT_VARS)) ports[name] = await freePort();
  return ports as StackOptions['ports'];
}

/**
 * The credentials a person needs to look inside (D17), each in a 0600 file: a libpq password file
 * with every role of this run (`PGPASSFILE=<dataDir>/credentials/pgpass psql -h 127.0.0.1 -U postgres`).
 */
function writeCredentials(dir: string, pgPort: number, admin: PgAdmin, databases: DatabaseAccess[]): void {
  const esc = (v: string) => v.replace(/[\\:]/g, (c) => `\\${c}`);
  const line = (db: string, user: string, password: string) => `127.0.0.1:${pgPort}:${esc(db)}:${esc(user)}:${esc(password)}`;
  const lines = [line('*', PG_SUPERUSER, admin.password)];
  for (const d of databases)
    lines.push(line(d.database, d.service.user, d.service.password), line(d.database, d.migrator.user, d.migrator.password));
  writeSecretFile(join(dir, CREDENTIAL_FILES.pgpass), `${lines.join('\n')}\n`);
}
