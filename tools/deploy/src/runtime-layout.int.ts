import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BUS_USERS } from '@xchain/contracts';
import {
  type DatabaseAccess,
  DEFAULT_REDIS_PREFIXES,
  type Managed,
  REDIS_SERVICES,
  ROOT,
  type RedisService,
  SERVICE_NODE_FLAGS,
  freePort,
  httpOk,
  launch,
  newDatabaseAccess,
  newRedisLogin,
  pgUrl,
  provisionDatabase,
  provisionRedisUsers,
  redisServiceRules,
  redisUrl,
  testPostgresAdmin,
  testRedisAdmin,
  waitFor,
  until,
} from '@xchain/stack';
import { APP_NAMES, IMAGE_NAMES, IMAGES, type ImageName } from './images';
import { passwordVar } from './nats-config';
import { type RuntimeLayout, assembleRuntime } from './runtime-layout';

/**
 * No container engine runs on this machine, so this builds what the Dockerfile's final stage holds
 * (`/app`: assemble-runtime's folder, the same function the Dockerfile's build stage runs) for every
 * image in a temporary folder, and runs each from there as the image would: `node main.js` (with the ENTRYPOINT's flags) in that
 * folder with nothing else installed above it. The migrate image migrates and seeds the test
 * PostgreSQL; the five apps start against NATS (docker/nats.conf, the compose server), the test
 * PostgreSQL and Redis, and must answer /readyz and their image's health check.
 */
jest.setTimeout(300_000);

const pg = Number(process.env['TEST_POSTGRES_PORT']);
const redis = Number(process.env['TEST_REDIS_PORT']);
const OWNS_DATA = new Set<ImageName>(['quote-engine', 'partner-service', 'gasless-relayer', 'migrate']);
const DEV_PACKAGES = [
  'jest',
  'typescript',
  'prisma',
  'nx',
  '@swc/core',
  'eslint',
  'solc',
  'node',
  'kubernetes-models',
  '@foundry-rs/anvil-linux-amd64',
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

/** Runs a layout's program to completion, as `docker run` would, with only the given environment. */
function runImage(dir: string, env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...SERVICE_NODE_FLAGS, 'main.js'], { cwd: dir, env, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe('the runtime layout of every image', () => {
  let dir: string;
  const layouts = {} as Record<ImageName, RuntimeLayout>;
  const base = (): NodeJS.ProcessEnv => ({ PATH: dirname(process.execPath), NODE_ENV: 'production', LOG_LEVEL: 'info' });

  beforeAll(() => {
    if (!pg || !redis) throw new Error('TEST_POSTGRES_PORT/TEST_REDIS_PORT unset: run through dist/tools/stack/src/test-servers.js');
    dir = mkdtempSync(join(tmpdir(), 'xchain-runtime-'));
    for (const image of IMAGE_NAMES) layouts[image] = assembleRuntime(ROOT, image, join(dir, image));
    // About 1.3 GB copied: under a loaded disk this alone has taken minutes.
  }, 600_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has nothing installed above it that a program could fall back on', () => {
    for (let d = dir; d !== dirname(d); d = dirname(d))
      expect({ d, modules: existsSync(join(d, 'node_modules')) }).toEqual({ d, modules: false });
  });

  it.each(IMAGE_NAMES)('%s holds its own compiled files and the production packages, nothing else', (image) => {
    const out = layouts[image].out;
    const all = files(out).map((f) => f.slice(out.length + 1));
    // The image's own files beyond its code (the gateway's built pages, dist/web) are checked below, by name.
    const own = IMAGES[image].files;
    const dist = all.filter((f) => f.startsWith('dist/') && !own.some((o) => f === o || f.startsWith(`${o}/`)));
    expect(dist.length).toBe(layouts[image].distFiles.length);
    expect(dist.filter((f) => !f.endsWith('.js') && !f.endsWith('.json'))).toEqual([]);
    const apps = new Set(dist.filter((f) => f.startsWith('dist/apps/')).map((f) => f.split('/')[2]));
    expect([...apps]).toEqual(image === 'migrate' ? ['quote-engine'] : [image]);
    expect(
      dist.some((f) => f.startsWith('dist/tools/stack/') || f.startsWith('dist/test/') || f.includes('.spec.') || f.includes('.int.')),
    ).toBe(false);
    for (const p of DEV_PACKAGES) expect({ p, installed: existsSync(join(out, 'node_modules', p)) }).toEqual({ p, installed: false });
    const needs = [
      'zod',
      ...(image === 'migrate' ? [] : ['@nestjs/core', '@opentelemetry/sdk-node']),
      ...(OWNS_DATA.has(image) ? ['@prisma/client', 'pg'] : []),
    ];
    for (const p of needs) expect({ p, installed: existsSync(join(out, 'node_modules', p)) }).toEqual({ p, installed: true });
    // Only what the image's code needs: the gateway owns no data, so it carries no database client.
    if (!OWNS_DATA.has(image)) expect(existsSync(join(out, 'node_modules/@prisma/client'))).toBe(false);
    for (const f of IMAGES[image].files) expect(existsSync(join(out, f))).toBe(true);
    const tops = new Set([
      'dist',
      'healthcheck.js',
      'main.js',
      'node_modules',
      'package.json',
      ...IMAGES[image].files.map((f) => f.split('/')[0]!),
    ]);
    expect(readdirSync(out).sort()).toEqual([...tops].sort());
  });

  describe('run', () => {
    const id = randomBytes(4).toString('hex');
    // As a database administrator would provision them (k8s/README.md): each database with its
    // service's role and its migrator (D17); the migrate image runs as the migrators, the apps as
    // their own roles, each with its own Redis user.
    const databases = new Map<string, DatabaseAccess>(
      ['quote_engine', 'partner_service', 'gasless_relayer'].map((n) => [n, newDatabaseAccess(`rt_${id}_${n}`)]),
    );
    const db = (name: string) => pgUrl(pg, databases.get(name)!.service, databases.get(name)!.database);
    const migrator = (name: string) => pgUrl(pg, databases.get(name)!.migrator, databases.get(name)!.database);
    const prefixes = { rateLimit: `rl-rt-${id}`, relayQueue: `rq-rt-${id}`, webhookQueue: `wh-rt-${id}` };
    const redisUsers = new Map(REDIS_SERVICES.map((s) => [s, newRedisLogin(`rt_${id}_${s}`)] as const));
    const migrateEnv = () => ({
      ...base(),
      QUOTE_ENGINE_DATABASE_URL: migrator('quote_engine'),
      PARTNER_SERVICE_DATABASE_URL: migrator('partner_service'),
      GASLESS_RELAYER_DATABASE_URL: migrator('gasless_relayer'),
    });
    const passwords = Object.fromEntries(BUS_USERS.map((u) => [u, `p${randomBytes(24).toString('hex')}`])) as Record<string, string>;
    const running: Managed[] = [];
    let collector: Server | undefined;

    afterAll(async () => {
      for (const p of running.reverse()) await p.stop();
      collector?.close();
    });

    beforeAll(async () => {
      for (const access of databases.values()) await provisionDatabase(testPostgresAdmin(), access);
      const admin = testRedisAdmin();
      await provisionRedisUsers(
        admin.port,
        admin.login,
        REDIS_SERVICES.map((s: RedisService) => ({
          login: redisUsers.get(s)!,
          rules: redisServiceRules(s, { ...DEFAULT_REDIS_PREFIXES, ...prefixes }),
        })),
      );
    });

    it('migrate: migrates every database as its migrator and seeds the registry, and does it again harmlessly', async () => {
      const first = await runImage(layouts.migrate.out, migrateEnv());
      expect(first).toEqual({ code: 0, out: expect.stringContaining('"applied":["2026') });
      expect(first.out).toMatch(/"seeded":/);
      const again = await runImage(layouts.migrate.out, migrateEnv());
      expect(again).toEqual({ code: 0, out: expect.stringContaining('"applied":[]') });
    });

    it('migrate: refuses to start without its databases, naming each', async () => {
      const res = await runImage(layouts.migrate.out, base());
      expect(res.code).toBe(2);
      for (const v of ['QUOTE_ENGINE_DATABASE_URL', 'PARTNER_SERVICE_DATABASE_URL', 'GASLESS_RELAYER_DATABASE_URL'])
        expect(res.out).toContain(v);
    });

    it('the five apps start from their folders, answer /readyz and pass their image health check; the gateway serves the seeded registry', async () => {
      // NATS as compose runs it: docker/nats.conf, every password from the environment.
      const natsDir = join(dir, 'nats');
      mkdirSync(join(natsDir, 'jetstream'), { recursive: true });
      const conf = readFileSync(join(ROOT, 'docker/nats.conf'), 'utf8');
      expect(conf).toContain('store_dir: "/data/jetstream"');
      writeFileSync(
        join(natsDir, 'nats.conf'),
        conf.replace('store_dir: "/data/jetstream"', `store_dir: ${JSON.stringify(join(natsDir, 'jetstream'))}`),
        { mode: 0o600 },
      );
      const [natsPort, monitorPort] = [await freePort(), await freePort()];
      const natsEnv: NodeJS.ProcessEnv = { PATH: process.env['PATH'] };
      for (const u of BUS_USERS) natsEnv[passwordVar(u)] = passwords[u];
      const nats = launch(
        'nats',
        'nats-server',
        ['-c', join(natsDir, 'nats.conf'), '-a', '127.0.0.1', '-p', String(natsPort), '-m', String(monitorPort)],
        { env: natsEnv, logFile: join(natsDir, 'nats.log') },
      );
      running.push(nats);
      await waitFor('nats', () => httpOk(`http://127.0.0.1:${monitorPort}/healthz`), 15_000, nats);

      // A stand-in trace backend: what each app's OTLP/HTTP exporter posts (the exporter package must be in the layout).
      const traces: Buffer[] = [];
      const backend = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          if (req.url === '/v1/traces') traces.push(Buffer.concat(chunks));
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        });
      });
      collector = backend;
      await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
      const collectorUrl = `http://127.0.0.1:${(backend.address() as { port: number }).port}`;

      const ports = Object.fromEntries(await Promise.all(APP_NAMES.map(async (a) => [a, await freePort()] as const)));
      const webhookKey = randomBytes(32).toString('hex');
      const envOf = (app: (typeof APP_NAMES)[number]): NodeJS.ProcessEnv => ({
        ...base(),
        HOST: '127.0.0.1',
        [IMAGES[app].health!.portVar]: String(ports[app]),
        NATS_URL: `nats://127.0.0.1:${natsPort}`,
        NATS_USER: app,
        NATS_PASSWORD: passwords[app],
        ...(redisUsers.has(app as RedisService) ? { REDIS_URL: redisUrl(redis, redisUsers.get(app as RedisService)!) } : {}),
        RATE_LIMIT_PREFIX: prefixes.rateLimit,
        RELAY_QUEUE_PREFIX: prefixes.relayQueue,
        WEBHOOK_QUEUE_PREFIX: prefixes.webhookQueue,
        OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_BSP_SCHEDULE_DELAY: '200',
        ...(
          {
            'quote-engine': { DATABASE_URL: db('quote_engine') },
            'partner-service': { DATABASE_URL: db('partner_service'), WEBHOOK_SECRET_KEY: webhookKey },
            'gasless-relayer': { DATABASE_URL: db('gasless_relayer') },
          } as Record<string, NodeJS.ProcessEnv>
        )[app],
      });
      const start = async (app: (typeof APP_NAMES)[number]) => {
        const log = join(dir, `${app}.log`);
        const proc = launch(app, process.execPath, [...SERVICE_NODE_FLAGS, 'main.js'], {
          cwd: layouts[app].out,
          env: envOf(app),
          logFile: log,
        });
        running.push(proc);
        try {
          await waitFor(app, () => httpOk(`http://127.0.0.1:${ports[app]}/readyz`), 60_000, proc);
        } catch (err) {
          const tail = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-5).join('\n') : '';
          throw new Error(`${(err as Error).message}\n${tail}`);
        }
      };
      await Promise.all(APP_NAMES.filter((a) => a !== 'gateway').map(start));
      await start('gateway');

      for (const app of APP_NAMES) {
        const code = await new Promise<number>((resolve) =>
          execFile(process.execPath, ['healthcheck.js'], { cwd: layouts[app].out, env: envOf(app), timeout: 10_000 }, (err) =>
            resolve(err ? ((err as { code?: number }).code ?? 1) : 0),
          ),
        );
        expect({ app, healthcheck: code }).toEqual({ app, healthcheck: 0 });
      }
      const tokens = await fetch(`http://127.0.0.1:${ports.gateway}/json/v1/tokens`);
      expect(tokens.status).toBe(200);
      expect(((await tokens.json()) as { tokens: unknown[] }).tokens.length).toBeGreaterThan(0);
      // That request's spans reach the trace backend from the gateway and from the quote-engine that answered it.
      for (const service of ['gateway', 'quote-engine']) {
        await until(`${service}'s spans`, async () => traces.some((t) => t.includes(service)), { timeoutMs: 15_000, everyMs: 100 });
      }
    });
  });
});
