import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Managed } from './process';
import { databaseUrl, startNats, startPostgres, startRedis, type ServerPorts } from './servers';
import { ROOT, SERVICES, runTool, startBuiltService, type ServiceSpec } from './services';

export interface StackOptions {
  dataDir: string;
  ports: ServerPorts & Record<ServiceSpec['name'], number>;
  /** Keep data across runs (local stack) or not (tests). */
  persistent: boolean;
  /** Service logs go here (one file each); undefined → inherit this terminal. */
  logDir?: string;
  registryFile?: string;
  extraEnv?: NodeJS.ProcessEnv;
  onProgress?: (line: string) => void;
}

export interface Stack {
  env: NodeJS.ProcessEnv;
  servers: Managed[];
  services: Map<ServiceSpec['name'], Managed>;
  stop(): Promise<void>;
}

/** Starts the servers, migrates and seeds, starts all five services, and waits until each is ready. */
export async function startStack(opts: StackOptions): Promise<Stack> {
  const say = opts.onProgress ?? (() => undefined);
  const log = (name: string) => (opts.logDir ? join(opts.logDir, `${name}.log`) : undefined);
  if (opts.logDir) mkdirSync(opts.logDir, { recursive: true });
  const servers: Managed[] = [];
  const services = new Map<ServiceSpec['name'], Managed>();
  const stop = async () => {
    for (const s of [...services.values()].reverse()) await s.stop();
    for (const s of servers.reverse()) await s.stop();
  };
  try {
    say('starting NATS, Redis and PostgreSQL');
    const [nats, redis, pg] = await Promise.all([
      startNats(join(opts.dataDir, 'nats'), opts.ports.nats, opts.ports.natsMonitor, log('nats')),
      startRedis(join(opts.dataDir, 'redis'), opts.ports.redis, opts.persistent, log('redis')),
      startPostgres(join(opts.dataDir, 'postgres'), opts.ports.postgres, opts.persistent, log('postgres')),
    ]);
    servers.push(nats, redis, pg);
    const base: NodeJS.ProcessEnv = {
      ...process.env,
      NATS_URL: `nats://127.0.0.1:${opts.ports.nats}`,
      REDIS_URL: `redis://127.0.0.1:${opts.ports.redis}`,
      ...opts.extraEnv,
    };
    for (const spec of SERVICES.filter((s) => s.database)) {
      const url = databaseUrl(opts.ports.postgres, spec.database!);
      say(`migrating ${spec.name}: ${await runTool('dist/tools/migrate/src/main.js', [spec.name, url], base)}`);
    }
    const qeDb = databaseUrl(opts.ports.postgres, 'quote_engine');
    const seeded = await runTool(
      'dist/apps/quote-engine/src/seed.js',
      [opts.registryFile ?? join(ROOT, 'config/registry.json')],
      { ...base, DATABASE_URL: qeDb },
    );
    say(`registry: ${seeded}`);
    await Promise.all(
      SERVICES.filter((s) => s.name !== 'gateway').map(async (spec) => {
        const env = spec.database ? { ...base, DATABASE_URL: databaseUrl(opts.ports.postgres, spec.database) } : base;
        services.set(spec.name, await startBuiltService({ spec, port: opts.ports[spec.name], env, logFile: log(spec.name) }));
        say(`${spec.name} ready on 127.0.0.1:${opts.ports[spec.name]}`);
      }),
    );
    const gw = SERVICES.find((s) => s.name === 'gateway')!;
    services.set('gateway', await startBuiltService({ spec: gw, port: opts.ports.gateway, env: base, logFile: log('gateway') }));
    return { env: base, servers, services, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
