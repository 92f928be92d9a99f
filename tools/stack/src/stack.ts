import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Bus, type TestUserSpec, newBus } from './bus';
import { type Managed, freePort, tcpOpen } from './process';
import { databaseUrl, startNats, startPostgres, startRedis, type ServerPorts } from './servers';
import { secretKeyFile } from './secret-key-file';
import { ROOT, SERVICES, runTool, startBuiltService, type ServiceSpec } from './services';

export interface StackOptions {
  dataDir: string;
  ports: ServerPorts & Record<ServiceSpec['name'], number>;
  /** Keep data across runs (local stack) or not (tests). */
  persistent: boolean;
  /** Service logs go here (one file each); undefined → inherit this terminal. */
  logDir?: string;
  registryFile?: string;
  /** Use these already running PostgreSQL/Redis (tests share one of each) instead of starting them. */
  external?: { postgres: number; redis: number };
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
}

export interface Stack {
  /** The environment shared by the services, without any NATS credentials (see `bus`). */
  env: NodeJS.ProcessEnv;
  /** This run's NATS users and their passwords: each service got its own; the operator's is for partner-admin. */
  bus: Bus;
  servers: Managed[];
  /** The first instance of each service. */
  services: Map<ServiceSpec['name'], Managed>;
  /** Every instance of each service, by index (the first is also in `services`). */
  instances: Map<ServiceSpec['name'], Managed[]>;
  /** The port of each instance of each service, by index. */
  instancePorts: Map<ServiceSpec['name'], number[]>;
  /** Starts instance `index` of a service again (after a test killed it), with its port, log and environment. */
  restart(name: ServiceSpec['name'], index?: number): Promise<Managed>;
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
    say(opts.external ? 'starting NATS' : 'starting NATS, Redis and PostgreSQL');
    // A fresh password per user per run; each service gets only its own (D14).
    const bus = newBus(opts.testUsers);
    servers.push(
      ...(await Promise.all([
        startNats(join(opts.dataDir, 'nats'), opts.ports.nats, opts.ports.natsMonitor, log('nats'), bus.users),
        ...(opts.external
          ? []
          : [
              startRedis(join(opts.dataDir, 'redis'), redisPort, opts.persistent, log('redis')),
              startPostgres(join(opts.dataDir, 'postgres'), pgPort, opts.persistent, log('postgres')),
            ]),
      ])),
    );
    const { NATS_USER: _user, NATS_PASSWORD: _password, ...inherited } = process.env;
    const base: NodeJS.ProcessEnv = {
      ...inherited,
      NATS_URL: `nats://127.0.0.1:${opts.ports.nats}`,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      // Local receivers (a developer's, a test's) may take webhooks over plain http on loopback;
      // stacks sharing one Redis keep their webhook queues apart.
      WEBHOOK_ALLOW_HTTP_LOCALHOST: 'true',
      ...(opts.databasePrefix
        ? {
            WEBHOOK_QUEUE_PREFIX: `wh-${opts.databasePrefix.replace(/[^a-zA-Z0-9_-]/g, '')}`,
            RELAY_QUEUE_PREFIX: `rq-${opts.databasePrefix.replace(/[^a-zA-Z0-9_-]/g, '')}`,
          }
        : {}),
      // The partner-service's key for webhook secrets at rest, kept with the data it encrypts.
      WEBHOOK_SECRET_KEY: inherited['WEBHOOK_SECRET_KEY'] ?? secretKeyFile(join(opts.dataDir, 'webhook-secret.key')),
      ...opts.extraEnv,
    };
    const dbUrl = (db: string) => databaseUrl(pgPort, `${opts.databasePrefix ?? ''}${db}`);
    for (const spec of SERVICES.filter((s) => s.database)) {
      say(`migrating ${spec.name}: ${await runTool('dist/tools/migrate/src/main.js', [spec.name, dbUrl(spec.database!)], base, opts.root)}`);
    }
    const qeDb = dbUrl('quote_engine');
    const seeded = await runTool(
      'dist/apps/quote-engine/src/seed.js',
      [opts.registryFile ?? join(opts.root ?? ROOT, 'config/registry.json')],
      { ...base, DATABASE_URL: qeDb },
    );
    say(`registry: ${seeded}`);
    await Promise.all(
      SERVICES.filter((s) => s.name !== 'gateway').map(async (spec) => {
        const env = { ...base, ...bus.envFor(spec.name), ...(spec.database ? { DATABASE_URL: dbUrl(spec.database) } : {}) };
        await startAll(spec, env);
        say(`${spec.name} ready on 127.0.0.1:${instancePorts.get(spec.name)!.join(', ')}`);
      }),
    );
    const gw = SERVICES.find((s) => s.name === 'gateway')!;
    await startAll(gw, { ...base, ...bus.envFor('gateway') });
    const restart = (name: ServiceSpec['name'], index = 0) => startInstance(SERVICES.find((s) => s.name === name)!, index);
    return { env: base, bus, servers, services, instances, instancePorts, restart, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

const PORT_VARS: Record<string, string> = {
  nats: 'NATS_PORT',
  natsMonitor: 'NATS_MONITOR_PORT',
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
    if (!skip.has(name) && (await tcpOpen(port))) taken.push(`port ${port} (${name}) is already in use; set ${PORT_VARS[name]} to a free port`);
  }
  if (taken.length > 0) throw new Error(taken.join('\n'));
}

/** A free loopback port for every server and service of a stack (tests, benchmarks). */
export async function freeStackPorts(): Promise<StackOptions['ports']> {
  const ports: Record<string, number> = {};
  for (const name of Object.keys(PORT_VARS)) ports[name] = await freePort();
  return ports as StackOptions['ports'];
}
