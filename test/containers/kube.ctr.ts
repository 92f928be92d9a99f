import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { DEV_FILLER_KEY, DEV_RELAYER_KEYS } from '@xchain/devnet';
import { parseAllDocuments, stringify } from 'yaml';
import { until, type UntilOptions } from '@xchain/stack';
import { crossChainOf, gatewayClient } from '../support/http';
import { EVM_REFUND, EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';

/**
 * The dev overlay's workloads under `podman kube play`, from the built images. No Kubernetes API
 * server can run here; kube play runs Deployments (one pod each), ConfigMaps and Secrets with the
 * pods' security contexts, read-only root filesystems and volumes. The pods join the network of the
 * system `npm run compose:up` started, whose NATS, Redis, PostgreSQL (its roles made, migrated and
 * seeded) and chains play what the cluster reaches by name; compose's own five apps are stopped
 * meanwhile, so every answer comes from the pods. docker/podman/check.sh runs this after the compose
 * suite.
 *
 * What is adapted, because kube play cannot express it (and nothing else):
 * 1. Objects it ignores or cannot run here are left out: Namespace, Service, StatefulSet (NATS:
 *    compose's server stands in), Job (the migrations: compose's migrate ran the same image),
 *    HorizontalPodAutoscaler, PodDisruptionBudget, NetworkPolicy, and the OpenTelemetry Collector
 *    (its image cannot be pulled here; the apps' exporters then fail quietly, as with a collector down).
 * 2. `metadata.namespace` goes (podman has none).
 * 3. Each app's image `xchain/<app>:dev` is the built `localhost/xchain/<app>:local`.
 * 4. httpGet probes become an exec of the image's own `node healthcheck.js` (GET /readyz): kube play
 *    turns httpGet into a health check that runs curl inside the container (no image of ours has it)
 *    and a named port into a broken one. The original probes are checked against the pods below.
 * 5. Ports: kube play publishes every containerPort on the host's 0.0.0.0; the gateway's is published
 *    on 127.0.0.1 at a free port, the others' are left out (the pods answer on their own IPs).
 * 6. The Secrets k8s/README.md says to create are made here, from compose's passwords and servers,
 *    as podman secrets holding each Secret's `data` map in JSON (`podman secret create`), which is
 *    what podman 4.3's secretKeyRef reads: a Secret object given in the played file is stored as
 *    YAML, which it then cannot read.
 * 7. NATS_STREAM_REPLICAS (3, one copy per StatefulSet member) is 1: compose's NATS is one server,
 *    which refuses a stream with more copies than it has members.
 */
jest.setTimeout(300_000);

const APPS = ['gateway', 'quote-engine', 'price-oracle', 'gasless-relayer', 'partner-service'] as const;
type App = (typeof APPS)[number];
const NETWORK = 'xchain_default';
const dir = process.env['XCHAIN_CONTAINERS_DIR'] ?? '';
const podman = (...args: string[]): string => execFileSync('podman', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).trim();
const inspect = (id: string): any => (JSON.parse(podman('inspect', id)) as any[])[0];
const root = join(__dirname, '../..');
const SECRET_NAMES = [
  'xchain-nats-users',
  'xchain-databases',
  'xchain-database-migrators',
  'xchain-redis',
  'xchain-signing-keys',
  'xchain-encryption-keys',
  'xchain-chain-rpc',
  'xchain-api-keys',
];

type Obj = { kind: string; metadata: { name: string; namespace?: string }; [k: string]: any };

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const POLL: UntilOptions = { timeoutMs: 90_000, everyMs: 500 };

/** The Secrets of k8s/README.md, filled from compose's passwords (compose.env) and naming compose's servers. */
function secrets(env: Record<string, string>): Obj[] {
  const v = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`${name} is not in compose.env`);
    return value;
  };
  const upper = (s: string) => s.toUpperCase().replace(/-/g, '_');
  const pg = (svc: string, role: string) =>
    `postgresql://${role}:${v(`POSTGRES_PASSWORD_${upper(role)}`)}@postgres:5432/${svc.replace(/-/g, '_')}`;
  const databases = ['quote-engine', 'partner-service', 'gasless-relayer'];
  const data: Record<string, Record<string, string>> = {
    'xchain-nats-users': {
      ...Object.fromEntries([...APPS, 'operator'].map((u) => [u, v(`NATS_PASSWORD_${upper(u)}`)])),
      route: `p${randomBytes(24).toString('hex')}`,
    },
    'xchain-databases': Object.fromEntries(databases.map((d) => [d, pg(d, d.replace(/-/g, '_'))])),
    'xchain-database-migrators': Object.fromEntries(databases.map((d) => [d, pg(d, `${d.replace(/-/g, '_')}_migrator`)])),
    'xchain-redis': Object.fromEntries(
      ['gateway', 'gasless-relayer', 'partner-service'].map((s) => [s, `redis://${s}:${v(`REDIS_PASSWORD_${upper(s)}`)}@redis:6379`]),
    ),
    // The devnet's public development keys (tools/devnet/src/dev-keys.ts; the voucher signer is anvil's account #1).
    'xchain-signing-keys': {
      'relayer-private-keys': DEV_RELAYER_KEYS.join(','),
      'filler-private-keys': DEV_FILLER_KEY,
      'voucher-signer-key': '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
    },
    'xchain-encryption-keys': { 'webhook-secret-key': v('WEBHOOK_SECRET_KEY') },
    'xchain-chain-rpc': {
      'evm-rpc-urls': 'ethereum=http://chains:8545,base=http://chains:8546,arbitrum=http://chains:8547',
      'solana-rpc-url': 'http://chains:8899',
    },
    'xchain-api-keys': {},
  };
  expect(Object.keys(data).sort()).toEqual([...SECRET_NAMES].sort());
  return Object.entries(data).map(([name, d]) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name },
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(d).map(([k, val]) => [k, Buffer.from(val).toString('base64')])),
  }));
}

/** The rendered dev overlay, adapted as the header says. */
function adapt(rendered: Obj[], gatewayPort: number): { played: Obj[]; left: string[] } {
  const played: Obj[] = [];
  const left: string[] = [];
  for (const o of rendered) {
    const app = APPS.find((a) => a === o.metadata.name);
    if (o.kind !== 'ConfigMap' && !(o.kind === 'Deployment' && app)) {
      left.push(`${o.kind}/${o.metadata.name}`);
      continue;
    }
    const copy = JSON.parse(JSON.stringify(o)) as Obj;
    delete copy.metadata.namespace;
    if (app) {
      for (const c of copy['spec'].template.spec.containers as any[]) {
        c.image = `localhost/xchain/${app}:local`;
        for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
          if (!c[probe]?.httpGet) continue;
          delete c[probe].httpGet;
          c[probe].exec = { command: ['node', 'healthcheck.js'] };
        }
        for (const e of c.env ?? []) if (e.name === 'NATS_STREAM_REPLICAS') e.value = '1';
        if (app === 'gateway') c.ports = c.ports.map((p: any) => ({ ...p, hostIP: '127.0.0.1', hostPort: gatewayPort }));
        else delete c.ports;
      }
    }
    played.push(copy);
  }
  return { played, left };
}

describe('the dev overlay under podman kube play', () => {
  let rendered: Obj[];
  let file = '';
  let gatewayPort = 0;
  // kube play names a Deployment's pod <name>-pod-0 and its containers <pod>-<container>.
  const ctr = (app: App) => `${app}-pod-0-${app}`;
  const ip = (app: App) =>
    Object.values(inspect(ctr(app)).NetworkSettings.Networks as Record<string, { IPAddress: string }>)[0]?.IPAddress ?? '';
  const removePods = () => APPS.forEach((app) => spawnSync('podman', ['pod', 'rm', '-f', `${app}-pod-0`], { stdio: 'ignore' }));
  const deployment = (app: App) => rendered.find((o) => o.kind === 'Deployment' && o.metadata.name === app)?.['spec'].template.spec;

  beforeAll(async () => {
    if (!dir) throw new Error('run through docker/podman/check.sh (npm run release:check), which starts the system first');
    rendered = parseAllDocuments(execFileSync('kubectl', ['kustomize', join(root, 'k8s/overlays/dev')], { encoding: 'utf8' })).map(
      (d) => d.toJSON() as Obj,
    );
    const env = Object.fromEntries(
      readFileSync(join(dir, 'compose.env'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    gatewayPort = await freePort();
    const { played, left } = adapt(rendered, gatewayPort);
    expect(left.map((r) => r.split('/')[0]).sort()).toEqual(
      expect.arrayContaining([
        'Deployment',
        'HorizontalPodAutoscaler',
        'Job',
        'Namespace',
        'NetworkPolicy',
        'PodDisruptionBudget',
        'Service',
        'StatefulSet',
      ]),
    );
    file = join(dir, 'kube-play.yaml');
    writeFileSync(file, played.map((o) => stringify(o)).join('---\n'));
    for (const secret of secrets(env)) {
      spawnSync('podman', ['secret', 'rm', secret.metadata.name], { stdio: 'ignore' });
    }
    // From a 0600 file removed at once (podman refuses `-` when stdin is a socket, as Node's pipes are).
    for (const secret of secrets(env)) {
      const f = join(dir, `secret-${secret.metadata.name}.json`);
      writeFileSync(f, JSON.stringify(secret['data']), { mode: 0o600 });
      try {
        podman('secret', 'create', secret.metadata.name, f);
      } finally {
        rmSync(f, { force: true });
      }
    }
    // The pods alone answer: compose's apps are stopped while they run.
    execFileSync('bash', [join(root, 'docker/podman/compose.sh'), 'stop', ...APPS], { stdio: 'ignore' });
    removePods(); // a failed earlier play leaves its pods, which kube down does not know
    // Its stderr is podman's complaint that no systemd runs the health checks (podman healthcheck run does, below).
    const play = spawnSync('podman', ['kube', 'play', '--network', NETWORK, file], { encoding: 'utf8' });
    if (play.status !== 0) throw new Error(`podman kube play failed: ${play.stderr}`);
  });

  afterAll(() => {
    if (file) spawnSync('podman', ['kube', 'down', file], { stdio: 'ignore' });
    removePods();
    for (const s of SECRET_NAMES) spawnSync('podman', ['secret', 'rm', s], { stdio: 'ignore' });
    execFileSync('bash', [join(root, 'docker/podman/compose.sh'), 'start', ...APPS], { stdio: 'ignore' });
  });

  describe.each(APPS)('%s', (app) => {
    it('runs with the security context of its manifest: its user, a read-only root filesystem, no capability, no privilege gain', () => {
      const c = inspect(ctr(app));
      const spec = deployment(app);
      const sc = spec.containers[0].securityContext;
      expect(c.State.Status).toBe('running');
      expect(c.Config.User).toBe(`${spec.securityContext.runAsUser}:${spec.securityContext.runAsGroup}`);
      expect(c.HostConfig.ReadonlyRootfs).toBe(sc.readOnlyRootFilesystem);
      expect(sc.capabilities.drop).toEqual(['ALL']);
      expect(c.EffectiveCaps ?? []).toEqual([]);
      expect(sc.allowPrivilegeEscalation).toBe(false);
      expect(c.HostConfig.SecurityOpt ?? []).toContain('no-new-privileges');
    });

    it('reads its ConfigMap files and its Secrets as the manifest maps them', () => {
      const spec = deployment(app).containers[0];
      const volumes = deployment(app).volumes as any[];
      for (const m of spec.volumeMounts ?? []) {
        const cm = volumes.find((vol) => vol.name === m.name)?.configMap?.name;
        const data = rendered.find((o) => o.kind === 'ConfigMap' && o.metadata.name === cm)?.['data'] as Record<string, string> | undefined;
        for (const [f, text] of Object.entries(data ?? {})) {
          expect({ f, same: podman('exec', ctr(app), 'cat', `${m.mountPath}/${f}`) === text.trim() }).toEqual({ f, same: true });
        }
      }
      const env = new Map((inspect(ctr(app)).Config.Env as string[]).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
      for (const e of spec.env as any[]) {
        const value = e.name === 'NATS_STREAM_REPLICAS' ? '1' : e.value; // adaptation 7
        if (value !== undefined) expect({ name: e.name, value: env.get(e.name) }).toEqual({ name: e.name, value });
        else if (e.valueFrom?.secretKeyRef && !e.valueFrom.secretKeyRef.optional)
          expect({ name: e.name, set: (env.get(e.name) ?? '').length > 0 }).toEqual({ name: e.name, set: true });
      }
    });

    it('becomes ready, and answers every probe path of its manifest on the probe’s port', async () => {
      const spec = deployment(app).containers[0];
      const ports = new Map<string, number>((spec.ports ?? []).map((p: any) => [p.name, p.containerPort]));
      await until(
        `${app} ready`,
        async () => (await fetch(`http://${ip(app)}:${spec.ports[0].containerPort}/readyz`)).status === 200,
        POLL,
      );
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
        const get = spec[probe]?.httpGet;
        if (!get) continue;
        const port = typeof get.port === 'number' ? get.port : ports.get(get.port);
        expect({ probe, status: (await fetch(`http://${ip(app)}:${port}${get.path}`)).status }).toEqual({ probe, status: 200 });
      }
      expect(podman('healthcheck', 'run', ctr(app))).toBe('');
    });
  });

  it('answers a quote through the gateway pod', async () => {
    const api = gatewayClient(`http://127.0.0.1:${gatewayPort}`);
    const q = crossChainOf(await api.getQuote({ ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND }));
    expect((await api.getOrder({ quote_hash: q.quote_hash })).quote_hash).toBe(q.quote_hash);
  });
});
