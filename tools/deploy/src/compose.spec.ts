import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUS_USERS } from '@xchain/contracts';
import { ROOT } from '@xchain/stack';
import { type EnvContract, appEnvSchema, envContract, envProblems, telemetryReads } from './app-env';
import { APP_NAMES, type AppName, IMAGE_NAMES } from './images';
import { parseYaml } from './manifests';
import { MigrateJobEnv } from './migrate-job-env';
import { passwordVar } from './nats-config';

/** docker/compose.yaml against the code: the same rules as the Kubernetes manifests. */
const compose = parseYaml(readFileSync(join(ROOT, 'docker/compose.yaml'), 'utf8'))[0] as { services: Record<string, any> };
const services = compose.services;
const telemetry = telemetryReads(ROOT);
const contracts = {} as Record<AppName, EnvContract>;

beforeAll(async () => {
  for (const app of APP_NAMES) contracts[app] = envContract(await appEnvSchema(ROOT, app));
});

/** `${NAME:?…}`, `${NAME:-…}` or `${NAME}` → NAME; a literal → undefined. */
const interpolated = (value: string): string | undefined => /^\$\{([A-Z0-9_]+)(?::[?-][^}]*)?\}$/.exec(value)?.[1];
const envOf = (service: any) => new Map<string, string | undefined>(Object.entries(service.environment ?? {}).map(([k, v]) => [k, String(v)]));

describe('docker/compose.yaml', () => {
  it('builds every image from docker/Dockerfile with its APP', () => {
    const built = Object.entries(services).filter(([, s]) => s.build);
    expect(built.map(([name]) => name).sort()).toEqual([...IMAGE_NAMES].sort());
    for (const [name, s] of built) {
      expect({ name, context: s.build.context, dockerfile: s.build.dockerfile, app: s.build.args.APP }).toEqual({ name, context: '..', dockerfile: 'docker/Dockerfile', app: name });
    }
  });

  describe.each(APP_NAMES)('%s', (app) => {
    const service = services[app];
    const env = envOf(service);

    it('sets only variables the app reads, and every one it needs, listening on all interfaces', () => {
      expect(envProblems(app, env, contracts[app], telemetry)).toEqual([]);
      expect(env.get('HOST')).toBe('0.0.0.0');
    });

    it('connects to NATS as its own user with the password nats-server has for it', () => {
      expect(env.get('NATS_USER')).toBe(app);
      expect(interpolated(env.get('NATS_PASSWORD')!)).toBe(passwordVar(app));
      expect(service.depends_on.nats).toEqual({ condition: 'service_healthy' });
    });

    it('runs read-only without capabilities, after its dependencies are up', () => {
      expect(service.read_only).toBe(true);
      expect(service.cap_drop).toEqual(['ALL']);
      if (contracts[app].names.has('DATABASE_URL')) expect(service.depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
      if (env.has('REDIS_URL')) expect(service.depends_on.redis).toEqual({ condition: 'service_healthy' });
    });
  });

  it('runs NATS with the generated configuration and every bus user’s password', () => {
    const nats = services['nats'];
    expect(nats.volumes).toContain('./nats.conf:/etc/nats/nats.conf:ro');
    expect(nats.command).toEqual(['--config', '/etc/nats/nats.conf']);
    const env = envOf(nats);
    expect([...env.keys()].sort()).toEqual(BUS_USERS.map(passwordVar).sort());
    for (const [name, value] of env) expect(interpolated(value!)).toBe(name);
  });

  it('runs the migrations with every variable migrate-job needs and no other', () => {
    expect(envProblems('migrate', envOf(services['migrate']), envContract(MigrateJobEnv), new Set())).toEqual([]);
    expect(services['migrate'].restart).toBe('no');
  });

  it('lists in .env.example every variable it requires', () => {
    const required = new Set([...readFileSync(join(ROOT, 'docker/compose.yaml'), 'utf8').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]!));
    const example = new Set([...readFileSync(join(ROOT, 'docker/.env.example'), 'utf8').matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]!));
    expect([...required].sort()).toEqual([...example].sort());
  });
});
