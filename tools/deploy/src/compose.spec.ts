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
/** docker/compose.devnet.yaml: the local chains, and what it adds to the services (compose merges environments). */
const devnet = (parseYaml(readFileSync(join(ROOT, 'docker/compose.devnet.yaml'), 'utf8'))[0] as { services: Record<string, any> }).services;
const telemetry = telemetryReads(ROOT);
const contracts = {} as Record<AppName, EnvContract>;

beforeAll(async () => {
  for (const app of APP_NAMES) contracts[app] = envContract(await appEnvSchema(ROOT, app));
});

/** `${NAME:?…}`, `${NAME:-…}` or `${NAME}` → NAME; a literal → undefined. */
const interpolated = (value: string): string | undefined => /^\$\{([A-Z0-9_]+)(?::[?-][^}]*)?\}$/.exec(value)?.[1];
const envOf = (service: any) =>
  new Map<string, string | undefined>(Object.entries(service.environment ?? {}).map(([k, v]) => [k, String(v)]));

describe('docker/compose.yaml', () => {
  it('builds every image from docker/Dockerfile with its APP', () => {
    const built = Object.entries(services).filter(([, s]) => s.build);
    expect(built.map(([name]) => name).sort()).toEqual([...IMAGE_NAMES].sort());
    for (const [name, s] of built) {
      expect({ name, context: s.build.context, dockerfile: s.build.dockerfile, app: s.build.args.APP }).toEqual({
        name,
        context: '..',
        dockerfile: 'docker/Dockerfile',
        app: name,
      });
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
      if (contracts[app].names.has('DATABASE_URL'))
        expect(service.depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
      if (env.has('REDIS_URL')) expect(service.depends_on.redis).toEqual({ condition: 'service_healthy' });
    });
  });

  it('with the local chains on top, still sets only variables each app reads, and reaches the chains by name', () => {
    for (const app of APP_NAMES) {
      const merged = new Map([...envOf(services[app]), ...envOf(devnet[app] ?? {})]);
      expect(envProblems(app, merged, contracts[app], telemetry)).toEqual([]);
      if (devnet[app])
        expect(merged.get('EVM_RPC_URLS')).toBe('ethereum=http://chains:8545,base=http://chains:8546,arbitrum=http://chains:8547');
    }
    expect(Object.keys(devnet).filter((s) => s !== 'chains' && !(APP_NAMES as readonly string[]).includes(s))).toEqual([]);
  });

  it('connects each service to PostgreSQL as its own role, and the migrations as each database’s migrator (D17)', () => {
    const sql = readFileSync(join(ROOT, 'k8s/provision/postgres.sql'), 'utf8');
    const roles = [...sql.matchAll(/^CREATE ROLE "([a-z_]+)"/gm)].map((m) => m[1]!);
    const dbVar = (role: string) => `POSTGRES_PASSWORD_${role.toUpperCase()}`;
    for (const app of ['quote-engine', 'partner-service', 'gasless-relayer'] as const) {
      const db = app.replace('-', '_');
      expect(envOf(services[app]).get('DATABASE_URL')).toBe(`postgresql://${db}:\${${dbVar(db)}}@postgres:5432/${db}`);
      expect(envOf(services['migrate']).get(`${db.toUpperCase()}_DATABASE_URL`)).toBe(
        `postgresql://${db}_migrator:\${${dbVar(`${db}_migrator`)}}@postgres:5432/${db}`,
      );
    }
    // PostgreSQL makes those roles from the generated provisioning, each password from its variable.
    const pg = services['postgres'];
    expect(pg.volumes).toEqual(
      expect.arrayContaining([
        '../k8s/provision/postgres.sql:/provision/postgres.sql:ro',
        './postgres-roles.sh:/docker-entrypoint-initdb.d/roles.sh:ro',
      ]),
    );
    const init = readFileSync(join(ROOT, 'docker/postgres-roles.sh'), 'utf8');
    const passed = new Map([...init.matchAll(/-v ([a-z_]+)="\$([A-Z0-9_]+)"/g)].map((m) => [m[1]!, m[2]!]));
    const wanted = [...new Set([...sql.matchAll(/:'([a-z_]+)'/g)].map((m) => m[1]!))];
    expect([...passed.keys()].sort()).toEqual(wanted.sort());
    expect(roles.map((r) => passed.get(`${r}_password`)).sort()).toEqual(roles.map(dbVar).sort());
    expect([...envOf(pg).keys()].sort()).toEqual(['POSTGRES_PASSWORD', ...roles.map(dbVar)].sort());
  });

  it('connects each Redis user to its own ACL user, with the passwords the generated ACL file is filled with (D17)', () => {
    const acl = readFileSync(join(ROOT, 'k8s/provision/redis-users.acl'), 'utf8');
    const aclVars = [...new Set([...acl.matchAll(/\$\{([A-Z0-9_]+)\}/g)].map((m) => m[1]!))];
    const redis = services['redis'];
    expect(redis.volumes).toContain('../k8s/provision/redis-users.acl:/etc/redis/users.acl.in:ro');
    expect([...envOf(redis).keys()].sort()).toEqual([...aclVars, 'REDIS_PASSWORD_ADMIN'].sort());
    for (const app of APP_NAMES) {
      const url = envOf(services[app]).get('REDIS_URL');
      if (url === undefined) continue;
      expect(url).toBe(`redis://${app}:\${REDIS_PASSWORD_${app.toUpperCase().replace('-', '_')}}@redis:6379`);
      expect(acl).toMatch(new RegExp(`^user ${app} reset on >\\$\\{REDIS_PASSWORD_${app.toUpperCase().replace('-', '_')}\\} `, 'm'));
    }
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
    const required = new Set(
      [...readFileSync(join(ROOT, 'docker/compose.yaml'), 'utf8').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]!),
    );
    const example = new Set([...readFileSync(join(ROOT, 'docker/.env.example'), 'utf8').matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]!));
    expect([...required].sort()).toEqual([...example].sort());
  });
});
