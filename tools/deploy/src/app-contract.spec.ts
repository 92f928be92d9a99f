import 'reflect-metadata';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PATH_METADATA } from '@nestjs/common/constants';
import { busPermissions } from '@xchain/contracts';
import { HealthController, METRICS_PATH } from '@xchain/service-kit';
import { ROOT, SERVICES } from '@xchain/stack';
import { type EnvContract, appEnvSchema, envContract, envProblems, telemetryReads } from './app-env';
import { APP_NAMES, type AppName, IMAGES } from './images';
import { OVERLAYS, type K8sObject, find, kubectlMissing, renderOverlay } from './manifests';
import { MigrateJobEnv } from './migrate-job-env';

/**
 * The deployment files against the code: every probe path is one the services serve, every probe
 * and Service port is the one the app listens on, every variable set is one the app reads, and none
 * it needs is left out. The names come from the apps' env schemas, so a renamed variable fails here.
 */
jest.setTimeout(60_000);

const missing = kubectlMissing();
if (missing) throw new Error(`${missing}: the Kubernetes manifests cannot be rendered, so they cannot be checked`);

const telemetry = telemetryReads(ROOT);
const contracts = {} as Record<AppName, EnvContract>;
const rendered = Object.fromEntries(OVERLAYS.map((o) => [o, renderOverlay(ROOT, o)])) as Record<(typeof OVERLAYS)[number], K8sObject[]>;

beforeAll(async () => {
  for (const app of APP_NAMES) contracts[app] = envContract(await appEnvSchema(ROOT, app));
});

/** The paths the shared health controller serves, read from Nest's route metadata. */
const served = (method: keyof HealthController): string =>
  `/${Reflect.getMetadata(PATH_METADATA, HealthController.prototype[method]) as string}`;
const LIVE = served('live');
const READY = served('ready');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sourceFiles(p) : /(?<!\.spec|\.int)\.ts$/.test(f) ? [p] : [];
  });
}

/** Variables a container sets: name → literal value (undefined when taken from a Secret or a field). */
const envOf = (container: any) => new Map<string, string | undefined>((container.env ?? []).map((e: any) => [e.name, e.value]));

describe('the images table', () => {
  it.each(APP_NAMES)('%s: the health port variable and its default are the app’s', (app) => {
    const health = IMAGES[app].health!;
    expect(contracts[app].names.has(health.portVar)).toBe(true);
    expect(contracts[app].defaults[health.portVar]).toBe(health.port);
    expect(SERVICES.find((s) => s.name === app)?.portVar).toBe(health.portVar);
  });

  it.each(APP_NAMES)('%s registers the shared health controller (/livez, /readyz)', (app) => {
    expect([LIVE, READY]).toEqual(['/livez', '/readyz']);
    expect(
      sourceFiles(join(ROOT, 'apps', app, 'src')).some((f) => /controllers: \[[^\]]*HealthController/.test(readFileSync(f, 'utf8'))),
    ).toBe(true);
  });

  it.each(Object.entries(IMAGES))('%s: the files it reads exist', (_name, spec) => {
    for (const f of spec.files) expect(existsSync(join(ROOT, f))).toBe(true);
  });
});

describe.each(OVERLAYS)('k8s/overlays/%s against the code', (overlay) => {
  const objects = rendered[overlay];

  describe.each(APP_NAMES)('%s', (app) => {
    const deployment = find(objects, 'Deployment', app);
    const pod = deployment.spec.template.spec;
    const container = pod.containers.find((c: any) => c.name === app);
    const env = envOf(container);
    const health = IMAGES[app].health!;

    it('runs the app’s image', () => {
      expect(pod.containers).toHaveLength(1);
      expect(container.image).toMatch(new RegExp(`^(.+/)?xchain/${app}:[^/]+$`));
    });

    it('sets only variables the app reads, and every one it needs', () => {
      expect(envProblems(app, env, contracts[app], telemetry)).toEqual([]);
      expect(env.get('HOST')).toBe('0.0.0.0');
    });

    it('connects to the bus as its own user, with its password from the Secret', () => {
      expect(env.get('NATS_USER')).toBe(app);
      const password = container.env.find((e: any) => e.name === 'NATS_PASSWORD');
      expect(password.valueFrom.secretKeyRef).toEqual({ name: 'xchain-nats-users', key: app });
      expect(env.get('NATS_URL')).toMatch(/^nats:\/\/nats:4222$/);
      expect(find(objects, 'Service', 'nats').spec.ports[0].port).toBe(4222);
    });

    it('keeps the streams it creates on every member of the NATS StatefulSet', () => {
      const creates = busPermissions()[app].publish.some((s) => s.startsWith('$JS.API.STREAM.CREATE.'));
      const members = find(objects, 'StatefulSet', 'nats').spec.replicas;
      expect(members).toBe(3);
      // Derived from the bus permissions: the apps that may create a stream or bucket say how many copies.
      expect({ app, replicas: env.get('NATS_STREAM_REPLICAS') }).toEqual({ app, replicas: creates ? String(members) : undefined });
    });

    it('probes the paths the app serves, on the port it listens on', () => {
      const listens = Number(env.get(health.portVar));
      const http = container.ports.find((p: any) => p.containerPort === listens);
      expect(http).toBeDefined();
      const portOf = (probe: any) =>
        typeof probe.httpGet.port === 'string'
          ? container.ports.find((p: any) => p.name === probe.httpGet.port)?.containerPort
          : probe.httpGet.port;
      expect({ path: container.startupProbe.httpGet.path, port: portOf(container.startupProbe) }).toEqual({ path: LIVE, port: listens });
      expect({ path: container.livenessProbe.httpGet.path, port: portOf(container.livenessProbe) }).toEqual({ path: LIVE, port: listens });
      expect({ path: container.readinessProbe.httpGet.path, port: portOf(container.readinessProbe) }).toEqual({
        path: READY,
        port: listens,
      });
      const service = find(objects, 'Service', app);
      expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
      const target = service.spec.ports[0].targetPort;
      expect(typeof target === 'string' ? container.ports.find((p: any) => p.name === target)?.containerPort : target).toBe(listens);
    });

    it('has Prometheus scrape the metrics it serves, where it serves them', () => {
      const annotations = deployment.spec.template.metadata.annotations;
      expect(annotations).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': env.get(health.portVar),
        'prometheus.io/path': METRICS_PATH,
      });
      expect(contracts[app].defaults['METRICS_ENABLED']).toBe(true);
      expect(env.get('METRICS_ENABLED') ?? 'true').toBe('true');
      // The monitoring namespace may reach that port.
      const policy = find(objects, 'NetworkPolicy', 'metrics-from-monitoring');
      expect(Object.entries(policy.spec.podSelector.matchLabels).every(([k, v]) => deployment.spec.template.metadata.labels[k] === v)).toBe(
        true,
      );
      expect(container.ports.find((p: any) => p.name === policy.spec.ingress[0].ports[0].port)?.containerPort).toBe(
        Number(env.get(health.portVar)),
      );
    });

    it('reads its configuration files from the mounted ConfigMap', () => {
      for (const [name, value] of env) {
        if (!name.endsWith('_FILE') || value === undefined) continue;
        const mount = container.volumeMounts.find((m: any) => value.startsWith(`${m.mountPath}/`));
        const volume = pod.volumes.find((v: any) => v.name === mount?.name);
        expect({ name, configMap: volume?.configMap?.name }).toEqual({ name, configMap: expect.stringMatching(/^xchain-config/) });
        expect(Object.keys(find(objects, 'ConfigMap', volume.configMap.name).data!)).toContain(value.slice(mount.mountPath.length + 1));
      }
    });
  });

  it('runs the migrations Job with every variable migrate-job reads and no other', () => {
    const job = find(objects, 'Job', 'xchain-migrate');
    const [container] = job.spec.template.spec.containers;
    expect(container.image).toMatch(/^(.+\/)?xchain\/migrate:[^/]+$/);
    const contract = envContract(MigrateJobEnv);
    expect(envProblems('migrate', envOf(container), contract, new Set())).toEqual([]);
    const registry = envOf(container).get('REGISTRY_FILE')!;
    const mount = container.volumeMounts.find((m: any) => registry.startsWith(`${m.mountPath}/`));
    const volume = job.spec.template.spec.volumes.find((v: any) => v.name === mount.name);
    expect(Object.keys(find(objects, 'ConfigMap', volume.configMap.name).data!)).toContain(registry.slice(mount.mountPath.length + 1));
  });
});
