import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * Reading the Kubernetes manifests as the cluster would get them: `kubectl kustomize` renders an
 * overlay, and kubernetes-models (the Kubernetes OpenAPI schemas compiled to validators) checks each
 * object. Used by the deploy specs.
 */
export const OVERLAYS = ['dev', 'prod'] as const;
export type Overlay = (typeof OVERLAYS)[number];

/** Rendered YAML, read loosely by the specs: the schema validator is what checks its shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Loose;
  data?: Record<string, string>;
}

/** Why kubectl cannot render here, or undefined when it can. */
export function kubectlMissing(): string | undefined {
  const res = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (res.error) return `kubectl is not installed (${res.error.message}); it ships with the machine image (kubectl v1.32, kustomize v5)`;
  return res.status === 0 ? undefined : `kubectl version failed: ${res.stderr}`;
}

export function renderOverlay(root: string, overlay: string): K8sObject[] {
  const text = execFileSync('kubectl', ['kustomize', join(root, 'k8s/overlays', overlay)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 60_000,
  });
  return parseYaml(text) as K8sObject[];
}

/** Every document of a YAML stream, as plain data (a document that does not parse throws). */
export function parseYaml(text: string): unknown[] {
  // Merge keys (`<<: *anchor`) as docker compose applies them.
  return parseAllDocuments(text, { merge: true })
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join('; '));
      return doc.toJS();
    })
    .filter((d) => d !== null);
}

export const refOf = (o: K8sObject): string => `${o.kind}/${o.metadata.name}`;

/** The pod template of a workload, if the object is one. */
export function podSpecOf(o: K8sObject): Loose {
  return ['Deployment', 'StatefulSet', 'Job', 'DaemonSet'].includes(o.kind) ? o.spec?.template?.spec : undefined;
}

export function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name} in the rendered manifests`);
  return found;
}

/**
 * kubernetes-models is ESM only (no `require` export), which Jest's CommonJS runtime cannot load, so
 * the objects are validated in a plain Node process: each by the model class of its apiVersion and
 * kind (an object of a kind it has no model for is an error).
 */
const VALIDATOR = `
const docs = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const results = [];
for (const d of docs) {
  const ref = d.kind + '/' + (d.metadata && d.metadata.name);
  const [group, version] = String(d.apiVersion).includes('/') ? d.apiVersion.split('/') : [undefined, d.apiVersion];
  let Model;
  try { Model = (await import(group ? 'kubernetes-models/' + group + '/' + version : 'kubernetes-models/' + version))[d.kind]; } catch {}
  if (!Model) { results.push({ ref, errors: ['no schema for ' + d.apiVersion + ' ' + d.kind] }); continue; }
  try { new Model(d).validate(); results.push({ ref, errors: [] }); }
  catch (e) { results.push({ ref, errors: [String(e && e.message || e)] }); }
}
process.stdout.write(JSON.stringify(results));
`;

export interface Validation {
  ref: string;
  errors: string[];
}

export function validateObjects(root: string, objects: unknown[]): Validation[] {
  const script = `import { createRequire } from 'node:module'; const require = createRequire(process.cwd() + '/'); ${VALIDATOR}`;
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    input: JSON.stringify(objects),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 60_000,
  });
  if (res.status !== 0) throw new Error(`validator failed: ${res.stderr || res.error?.message}`);
  return JSON.parse(res.stdout) as Validation[];
}
