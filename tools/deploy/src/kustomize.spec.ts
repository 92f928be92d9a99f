import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUS_USERS } from '@xchain/contracts';
import { ROOT } from '@xchain/stack';
import { CONFIG_FILES } from './generated-files';
import { OVERLAYS, type K8sObject, find, kubectlMissing, podSpecOf, refOf, renderOverlay, validateObjects } from './manifests';
import { K8S_CLUSTER, MONITOR_LISTEN, NATS_PORTS, ROUTE_PASSWORD_VAR, clusterConfig, passwordVar, routeVar } from './nats-config';
import { SECRETS } from './secrets';

jest.setTimeout(60_000);

const missing = kubectlMissing();
if (missing) throw new Error(`${missing}: the Kubernetes manifests cannot be rendered, so they cannot be checked`);

const rendered = Object.fromEntries(OVERLAYS.map((o) => [o, renderOverlay(ROOT, o)])) as Record<(typeof OVERLAYS)[number], K8sObject[]>;
const workloads = (objects: K8sObject[]) => objects.filter((o) => podSpecOf(o));
const containersOf = (o: K8sObject): any[] => [...(podSpecOf(o).initContainers ?? []), ...podSpecOf(o).containers];
const selects = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

describe('the schema validator', () => {
  it('rejects an object the Kubernetes schemas reject, and a kind it has no schema for', () => {
    const deployment = structuredClone(find(rendered.dev, 'Deployment', 'gateway'));
    deployment.spec.replicas = 'two';
    delete deployment.spec.selector;
    const [bad, unknown] = validateObjects(ROOT, [deployment, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }]);
    expect(bad!.errors.join(' ')).toMatch(/replicas must be integer|selector/);
    expect(unknown!.errors).toEqual(['no schema for example.com/v1 Widget']);
  });
});

describe.each(OVERLAYS)('k8s/overlays/%s', (overlay) => {
  const objects = rendered[overlay];

  it('renders every part of the system into one namespace', () => {
    const names = objects.map(refOf);
    for (const app of ['gateway', 'quote-engine', 'price-oracle', 'gasless-relayer', 'partner-service', 'otel-collector']) {
      expect(names).toEqual(expect.arrayContaining([`Deployment/${app}`]));
    }
    expect(names).toEqual(
      expect.arrayContaining(['StatefulSet/nats', 'Job/xchain-migrate', 'Namespace/' + (overlay === 'prod' ? 'xchain' : 'xchain-dev')]),
    );
    const namespaces = new Set(objects.filter((o) => o.kind !== 'Namespace').map((o) => o.metadata.namespace));
    expect(namespaces.size).toBe(1);
  });

  it('validates every object against the Kubernetes schemas', () => {
    const results = validateObjects(ROOT, objects);
    expect(results.map((r) => r.ref)).toEqual(objects.map(refOf));
    expect(results.filter((v) => v.errors.length > 0)).toEqual([]);
  });

  it('commits no Secret and references exactly the documented ones', () => {
    expect(objects.filter((o) => o.kind === 'Secret').map(refOf)).toEqual([]);
    const used = new Map<string, boolean>();
    for (const w of workloads(objects)) {
      for (const c of containersOf(w)) {
        for (const e of c.env ?? []) {
          const ref = e.valueFrom?.secretKeyRef;
          if (ref) used.set(`${ref.name}/${ref.key}`, ref.optional === true);
        }
      }
    }
    const documented = new Map<string, boolean>();
    for (const [name, spec] of Object.entries(SECRETS))
      for (const key of spec.keys) documented.set(`${name}/${key}`, spec.optionalKeys?.includes(key) ?? false);
    expect(Object.fromEntries(used)).toEqual(Object.fromEntries(documented));
    const readme = readFileSync(join(ROOT, 'k8s/README.md'), 'utf8');
    for (const [name, spec] of Object.entries(SECRETS)) {
      expect(readme).toContain(`\`${name}\``);
      for (const key of spec.keys) expect(readme).toContain(`\`${key}\``);
    }
  });

  it('runs every container as a non-root user on a read-only root filesystem, with requests and limits', () => {
    const problems: string[] = [];
    for (const w of workloads(objects)) {
      const pod = podSpecOf(w);
      if (pod.automountServiceAccountToken !== false) problems.push(`${refOf(w)} mounts a service account token`);
      // Service links would add variables such as GATEWAY_PORT=tcp://… to every pod.
      if (pod.enableServiceLinks !== false) problems.push(`${refOf(w)} gets service link variables`);
      for (const c of containersOf(w)) {
        const who = `${refOf(w)} ${c.name}`;
        const sc = c.securityContext ?? {};
        if ((sc.runAsNonRoot ?? pod.securityContext?.runAsNonRoot) !== true) problems.push(`${who} may run as root`);
        if ((sc.runAsUser ?? pod.securityContext?.runAsUser ?? 0) === 0) problems.push(`${who} has no non-zero runAsUser`);
        if (sc.readOnlyRootFilesystem !== true) problems.push(`${who} has a writable root filesystem`);
        if (sc.allowPrivilegeEscalation !== false) problems.push(`${who} may escalate privileges`);
        if (!sc.capabilities?.drop?.includes('ALL')) problems.push(`${who} keeps capabilities`);
        if (pod.securityContext?.seccompProfile?.type !== 'RuntimeDefault') problems.push(`${who} has no RuntimeDefault seccomp profile`);
        for (const kind of ['requests', 'limits'])
          for (const r of ['cpu', 'memory']) if (!c.resources?.[kind]?.[r]) problems.push(`${who} has no ${r} ${kind.slice(0, -1)}`);
        if (c.envFrom) problems.push(`${who} uses envFrom (the env checks must see every name)`);
        if (!/:[^/]+$/.test(c.image)) problems.push(`${who} runs an untagged image ${c.image}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('gives every long-running workload a PodDisruptionBudget, and autoscales the gateway and the quote-engine', () => {
    const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget');
    for (const w of objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')) {
      const labels = w.spec.template.metadata.labels;
      expect({ workload: refOf(w), pdbs: pdbs.filter((p) => selects(p.spec.selector.matchLabels, labels)).length }).toEqual({
        workload: refOf(w),
        pdbs: 1,
      });
    }
    const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => `${h.spec.scaleTargetRef.kind}/${h.spec.scaleTargetRef.name}`).sort()).toEqual([
      'Deployment/gateway',
      'Deployment/quote-engine',
    ]);
    for (const h of hpas) {
      // A replica count in the Deployment would fight the autoscaler on every apply.
      expect(find(objects, 'Deployment', h.spec.scaleTargetRef.name).spec.replicas).toBeUndefined();
      expect(h.spec.minReplicas).toBeLessThanOrEqual(h.spec.maxReplicas);
    }
  });

  it('lets traffic from outside reach only the gateway', () => {
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    const denyAll = policies.filter(
      (p) => Object.keys(p.spec.podSelector).length === 0 && p.spec.policyTypes.includes('Ingress') && !p.spec.ingress,
    );
    expect(denyAll).toHaveLength(1);
    const openToAnyone = policies.filter((p) =>
      (p.spec.ingress ?? []).some((rule: any) => !rule.from || rule.from.some((f: any) => f.ipBlock)),
    );
    expect(openToAnyone.map((p) => p.spec.podSelector.matchLabels)).toEqual([{ 'app.kubernetes.io/name': 'gateway' }]);
    // Every other rule admits pods of this namespace by label, or Prometheus' namespace to the services' ports.
    const MONITORING = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } };
    for (const p of policies) {
      for (const rule of p.spec.ingress ?? []) {
        for (const f of rule.from ?? []) {
          if (Object.keys(f).join() === 'podSelector') continue;
          expect({ policy: p.metadata.name, from: f }).toEqual({ policy: p.metadata.name, from: MONITORING });
          expect(rule.ports).toEqual([{ port: 'http' }]);
        }
      }
    }
    const services = objects.filter((o) => o.kind === 'Service' && o.spec.type && o.spec.type !== 'ClusterIP');
    expect(services.map(refOf)).toEqual([]);
  });

  it('runs NATS as a three-node JetStream cluster with the generated users, passwords from the Secret', () => {
    const nats = find(objects, 'StatefulSet', 'nats');
    expect(nats.spec.replicas).toBe(K8S_CLUSTER.replicas);
    const c = nats.spec.template.spec.containers[0];
    const env = new Map<string, any>(c.env.map((e: any) => [e.name, e]));
    for (const user of BUS_USERS) {
      expect(env.get(passwordVar(user))?.valueFrom?.secretKeyRef).toEqual({ name: 'xchain-nats-users', key: user });
    }
    expect(env.get(ROUTE_PASSWORD_VAR)?.valueFrom?.secretKeyRef).toEqual({ name: 'xchain-nats-users', key: 'route' });
    for (let i = 0; i < K8S_CLUSTER.replicas; i++) {
      expect(env.get(routeVar(i))?.value).toBe(
        `nats-route://route:$(${ROUTE_PASSWORD_VAR})@nats-${i}.${nats.spec.serviceName}:${NATS_PORTS.cluster}`,
      );
    }
    expect(env.get('POD_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    expect(find(objects, 'Service', nats.spec.serviceName).spec.clusterIP).toBe('None');
    const ports = Object.fromEntries(c.ports.map((p: any) => [p.name, p.containerPort]));
    expect(ports).toEqual({ client: NATS_PORTS.client, cluster: NATS_PORTS.cluster });
    // Monitoring (users, subscriptions; no login) on the pod's loopback only, probed from inside it (D17).
    expect(clusterConfig()).toContain(`http: ${MONITOR_LISTEN}\n`);
    expect(clusterConfig()).not.toMatch(/http: 0\.0\.0\.0/);
    for (const probe of [c.startupProbe, c.readinessProbe, c.livenessProbe]) {
      expect(probe.httpGet).toBeUndefined();
      expect(probe.exec.command.at(-1)).toMatch(new RegExp(`^http://${MONITOR_LISTEN.replace(/\./g, '\\.')}/healthz`));
    }
    for (const svc of objects.filter((o) => o.kind === 'Service' && o.spec.selector?.['app.kubernetes.io/name'] === 'nats')) {
      expect({ svc: svc.metadata.name, ports: svc.spec.ports.map((p: any) => p.port) }).toEqual({
        svc: svc.metadata.name,
        ports: expect.not.arrayContaining([NATS_PORTS.monitor]),
      });
    }
    // The configuration the pods mount is the generated one.
    const configVolume = nats.spec.template.spec.volumes.find((v: any) => v.configMap);
    const mount = c.volumeMounts.find((m: any) => m.name === configVolume.name);
    expect(c.args).toEqual(['--config', `${mount.mountPath}/nats.conf`]);
    expect(find(objects, 'ConfigMap', configVolume.configMap.name).data?.['nats.conf']).toBe(clusterConfig());
  });

  it('mounts the configuration files of config/ unchanged', () => {
    const names = new Set(
      workloads(objects).flatMap((w) =>
        (podSpecOf(w).volumes ?? []).filter((v: any) => v.configMap?.name.startsWith('xchain-config')).map((v: any) => v.configMap.name),
      ),
    );
    expect(names.size).toBe(1);
    const data = find(objects, 'ConfigMap', [...names][0]!).data!;
    for (const f of CONFIG_FILES) expect(data[f]).toBe(readFileSync(join(ROOT, 'config', f), 'utf8'));
  });

  it('runs the OpenTelemetry Collector with OTLP in over gRPC and HTTP, and an export endpoint from the overlay', () => {
    const collector = find(objects, 'Deployment', 'otel-collector');
    const c = collector.spec.template.spec.containers[0];
    const configName = collector.spec.template.spec.volumes.find((v: any) => v.configMap).configMap.name;
    const config = find(objects, 'ConfigMap', configName).data!['collector.yaml']!;
    expect(config).toMatch(/grpc:\s+endpoint: 0\.0\.0\.0:4317/);
    expect(config).toMatch(/http:\s+endpoint: 0\.0\.0\.0:4318/);
    expect(config).toMatch(/processors: \[memory_limiter, (.+, )?batch\]/);
    expect(config).toBe(readFileSync(join(ROOT, 'ops/otel/collector.yaml'), 'utf8'));
    expect(config).toMatch(/endpoint: \$\{env:OTLP_EXPORT_ENDPOINT\}/);
    const endpointRef = c.env.find((e: any) => e.name === 'OTLP_EXPORT_ENDPOINT').valueFrom.configMapKeyRef;
    expect(find(objects, 'ConfigMap', endpointRef.name).data?.[endpointRef.key]).toMatch(/^[a-z0-9.-]+:\d+$/);
    // Every service exports its traces to the collector's OTLP/HTTP port.
    const svc = find(objects, 'Service', 'otel-collector');
    const httpPort = svc.spec.ports.find((p: any) => p.name === 'otlp-http').port;
    for (const app of ['gateway', 'quote-engine', 'price-oracle', 'gasless-relayer', 'partner-service']) {
      const env = find(objects, 'Deployment', app).spec.template.spec.containers[0].env;
      expect(env.find((e: any) => e.name === 'OTEL_EXPORTER_OTLP_ENDPOINT')?.value).toBe(`http://otel-collector:${httpPort}`);
      expect(env.find((e: any) => e.name === 'OTEL_EXPORTER_OTLP_PROTOCOL')?.value).toBe('http/protobuf');
    }
  });
});
