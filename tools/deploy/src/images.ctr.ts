import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import { APP_NAMES, IMAGE_NAMES, IMAGES, type ImageName } from './images';
import { type Loose, OVERLAYS, podSpecOf, refOf, renderOverlay } from './manifests';

/**
 * The images `npm run images` built (docker/podman/images.sh), opened with podman: what each one's
 * files are and how it is configured to run. Run by docker/podman/check.sh (npm run release:check),
 * which sets podman's storage; the running side (each app to /readyz, read-only, as its user) is
 * test/containers/compose.ctr.ts.
 */
jest.setTimeout(600_000);

const podman = (...args: string[]): string => execFileSync('podman', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).trim();
const tag = (image: ImageName) => `localhost/xchain/${image}:local`;

/** Packages of the build stage (devDependencies, tools) that no runtime image may carry. */
const DEV_PACKAGES = [
  'jest',
  'typescript',
  'prisma',
  'nx',
  '@swc/core',
  '@swc/cli',
  'eslint',
  'solc',
  'node',
  'kubernetes-models',
  'litesvm',
  '@foundry-rs/anvil-linux-amd64',
  '@nestjs/testing',
  'fast-check',
];
/** Debian packages a runtime image has no use for: compilers, build tools, interpreters, fetchers. */
const DEV_DEBS = /^(gcc(-[0-9]+)?|g\+\+(-[0-9]+)?|cpp(-[0-9]+)?|make|build-essential|python3.*|git|curl|wget|.*-dev)$/;

/** The lines of the certificates this machine's TLS proxy signs with (the build stage trusts them; no layer may hold them). */
function proxyCaLines(): string[] {
  const dir = '/usr/local/share/ca-certificates';
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.crt'))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => /^[A-Za-z0-9+/]{64}$/.test(l))
        .slice(2, 4),
    );
}

interface Entry {
  path: string;
  uid: number;
  mode: number;
  size: number;
  dir: boolean;
}

function walk(root: string, rel = ''): Entry[] {
  const out: Entry[] = [];
  for (const name of readdirSync(join(root, rel))) {
    const path = `${rel}/${name}`;
    const st = lstatSync(join(root, path));
    out.push({ path, uid: st.uid, mode: st.mode, size: st.size, dir: st.isDirectory() });
    if (st.isDirectory()) out.push(...walk(root, path));
  }
  return out;
}

describe.each(IMAGE_NAMES)('image xchain/%s', (image) => {
  let root = '';
  let files: Entry[] = [];
  let info: {
    Size: number;
    Healthcheck?: { Test: string[] };
    Config: { User: string; WorkingDir: string; Entrypoint: string[]; Env: string[] };
  };

  beforeAll(() => {
    if (!process.env['CONTAINERS_STORAGE_CONF'])
      throw new Error('podman storage is not set: run through docker/podman/check.sh (npm run release:check)');
    const [found] = JSON.parse(podman('image', 'inspect', tag(image))) as (typeof info)[];
    if (!found) throw new Error(`no image ${tag(image)}: npm run images`);
    info = found;
    root = podman('image', 'mount', tag(image));
    files = walk(root);
    const size = info.Size;
    const app = files.filter((f) => f.path.startsWith('/app/')).reduce((n, f) => n + (f.dir ? 0 : f.size), 0);
    console.log(
      `xchain/${image}: ${(size / 1e6).toFixed(0)} MB, of which /app ${(app / 1e6).toFixed(0)} MB in ${files.filter((f) => f.path.startsWith('/app/')).length} entries`,
    );
  });

  afterAll(() => {
    if (root) podman('image', 'unmount', tag(image));
  });

  it('runs as a non-root user from /app, the same program as assemble-runtime laid out, with a /readyz health check', () => {
    const config = info.Config;
    expect(config.User).toMatch(/^[1-9][0-9]*:[1-9][0-9]*$/);
    expect(config.WorkingDir).toBe('/app');
    expect(config.Entrypoint.at(0)).toBe('node');
    expect(config.Entrypoint.at(-1)).toBe('main.js');
    expect(info.Healthcheck?.Test).toEqual(['CMD', 'node', 'healthcheck.js']);
    const tops = new Set([
      'dist',
      'healthcheck.js',
      'main.js',
      'node_modules',
      'package.json',
      ...IMAGES[image].files.map((f) => f.split('/')[0] ?? f),
    ]);
    expect(readdirSync(join(root, 'app')).sort()).toEqual([...tops].sort());
  });

  it('holds its code owned by root, not writable by the user it runs as', () => {
    const app = files.filter((f) => f.path.startsWith('/app'));
    expect(app.filter((f) => f.uid !== 0).map((f) => f.path)).toEqual([]);
    expect(app.filter((f) => (f.mode & 0o002) !== 0 && (f.mode & 0o170000) !== 0o120000).map((f) => f.path)).toEqual([]);
  });

  it('carries no CA bundle, npm configuration, credential or environment secret', () => {
    const paths = files.map((f) => f.path);
    expect(
      paths.filter(
        (p) => p.startsWith('/etc/ssl/certs/') || p.startsWith('/usr/local/share/ca-certificates/') || p.startsWith('/run/xchain-build'),
      ),
    ).toEqual([]);
    expect(
      paths.filter(
        (p) =>
          /(^|\/)(\.npmrc|\.env|\.netrc|\.git-credentials|id_rsa|id_ed25519|\.dockerconfigjson|config\.json)$/.test(p) &&
          !p.startsWith('/app/node_modules/'),
      ),
    ).toEqual([]);
    expect(
      paths.filter((p) => /^\/(root|home\/[^/]+)\/\.(npm|cache|config)(\/|$)/.test(p) || p.startsWith('/src') || p.startsWith('/runtime')),
    ).toEqual([]);
    expect(info.Config.Env.filter((e) => /PASSWORD|SECRET|TOKEN|_KEY=|NPM_CONFIG|NODE_EXTRA_CA_CERTS/i.test(e))).toEqual([]);
    // The proxy's CA must not hide in any file under any name: look for its lines in every file.
    const needles = proxyCaLines().map((l) => Buffer.from(l));
    // The needles are what a bundle holds: the host's bundle, which trusts the proxy, has them.
    if (needles[0]) expect(readFileSync('/etc/ssl/certs/ca-certificates.crt').includes(needles[0])).toBe(true);
    const holders = files
      .filter((f) => !f.dir && (f.mode & 0o170000) === 0o100000)
      .filter((f) => {
        const body = readFileSync(join(root, f.path));
        return needles.some((n) => body.includes(n));
      })
      .map((f) => f.path);
    expect(holders).toEqual([]);
  });

  it('carries no dev package: none of the build stage’s tools in node_modules, no compiler or build tool from Debian', () => {
    for (const p of DEV_PACKAGES) expect({ p, installed: existsSync(join(root, 'app/node_modules', p)) }).toEqual({ p, installed: false });
    const debs = [...readFileSync(join(root, 'var/lib/dpkg/status'), 'utf8').matchAll(/^Package: (.+)$/gm)].map((m) => m[1] ?? '');
    expect(debs.filter((d) => DEV_DEBS.test(d))).toEqual([]);
    expect(
      files.filter((f) => f.path.startsWith('/app/dist/') && /\.(ts|map)$|\.(spec|int|e2e|ctr)\.js$/.test(f.path)).map((f) => f.path),
    ).toEqual([]);
  });
});

/**
 * The manifests against the built images (what kube play and a cluster would run): every workload
 * of both overlays that runs one of our images asks only for what that image really has. Its user
 * is the image's, every variable it sets is read somewhere in the image's code (its compiled files
 * or its packages, e.g. the OpenTelemetry SDK's OTEL_*), its container port is the one the app
 * listens on with the variables set, the image's own health check probes that same port, its probe
 * paths are routes the image's code serves, and the files its variables name are in its ConfigMaps.
 * (test/containers/kube.ctr.ts fetches each probe of the dev overlay from the running pods.)
 */
describe.each(OVERLAYS)('the %s overlay against the built images', (overlay) => {
  const objects = renderOverlay(ROOT, overlay);
  const workloads = objects.flatMap((o) => {
    const spec = podSpecOf(o) as Loose;
    const containers = (spec?.containers ?? []) as Loose[];
    return containers
      .map((c) => ({ ref: refOf(o), spec, c, image: IMAGE_NAMES.find((i) => String(c.image).split(':')[0] === `xchain/${i}`) }))
      .filter((w): w is typeof w & { image: ImageName } => w.image !== undefined);
  });
  const mounted = new Map<ImageName, string>();
  const code = new Map<ImageName, string>();
  const rootOf = (image: ImageName): string => {
    const root = mounted.get(image) ?? podman('image', 'mount', tag(image));
    mounted.set(image, root);
    return root;
  };
  /** Every text file of the image's /app, concatenated (the variables and routes its code names). */
  const codeOf = (image: ImageName): string => {
    const cached = code.get(image);
    if (cached !== undefined) return cached;
    const app = join(rootOf(image), 'app');
    const text = walk(app)
      .filter((f) => !f.dir && /\.(c?js|mjs|json)$/.test(f.path))
      .map((f) => readFileSync(join(app, f.path), 'utf8'))
      .join('\n');
    code.set(image, text);
    return text;
  };
  afterAll(() => {
    for (const image of mounted.keys()) podman('image', 'unmount', tag(image));
  });

  it('runs every one of the six images somewhere', () => {
    expect([...new Set(workloads.map((w) => w.image))].sort()).toEqual([...IMAGE_NAMES].sort());
  });

  it.each(IMAGE_NAMES)('%s: as the image’s user, setting only variables the image reads', (image) => {
    const [info] = JSON.parse(podman('image', 'inspect', tag(image))) as { Config: { User: string } }[];
    for (const w of workloads.filter((x) => x.image === image)) {
      const sc = w.spec.securityContext ?? {};
      expect({ ref: w.ref, user: `${sc.runAsUser}:${sc.runAsGroup}` }).toEqual({ ref: w.ref, user: info?.Config.User });
      const text = codeOf(image);
      const unread = ((w.c.env ?? []) as { name: string }[]).map((e) => e.name).filter((n) => !text.includes(n));
      expect({ ref: w.ref, unread }).toEqual({ ref: w.ref, unread: [] });
    }
  });

  it.each(APP_NAMES)('%s: its container port is where the app listens and where the image’s health check looks', (app) => {
    const health = IMAGES[app].health;
    if (!health) throw new Error(`${app} has no health port`);
    const healthcheck = readFileSync(join(rootOf(app), 'app/healthcheck.js'), 'utf8');
    expect(healthcheck).toContain(`process.env.${health.portVar} || '${health.port}'`);
    for (const w of workloads.filter((x) => x.image === app)) {
      const env = new Map(((w.c.env ?? []) as { name: string; value?: string }[]).map((e) => [e.name, e.value]));
      const listens = Number(env.get(health.portVar) ?? health.port);
      const ports = (w.c.ports ?? []) as { name?: string; containerPort: number }[];
      expect({ ref: w.ref, ports: ports.map((p) => p.containerPort) }).toEqual({ ref: w.ref, ports: [listens] });
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
        const get = w.c[probe]?.httpGet as { path: string; port: number | string } | undefined;
        if (!get) continue;
        const port = typeof get.port === 'number' ? get.port : ports.find((p) => p.name === get.port)?.containerPort;
        expect({ ref: w.ref, probe, port, served: codeOf(app).includes(`'${get.path}'`) || codeOf(app).includes(`"${get.path}"`) }).toEqual(
          { ref: w.ref, probe, port: listens, served: true },
        );
      }
    }
  });

  it('points every *_FILE variable at a file its ConfigMap mount holds', () => {
    for (const w of workloads) {
      for (const e of (w.c.env ?? []) as { name: string; value?: string }[]) {
        if (!e.name.endsWith('_FILE') || !e.value?.startsWith('/')) continue;
        const mount = ((w.c.volumeMounts ?? []) as { name: string; mountPath: string }[]).find((m) =>
          e.value?.startsWith(`${m.mountPath}/`),
        );
        const cm = ((w.spec.volumes ?? []) as Loose[]).find((v) => v.name === mount?.name)?.configMap?.name;
        const data = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === cm)?.data ?? {};
        expect({ ref: w.ref, file: e.value, held: e.value.slice((mount?.mountPath.length ?? 0) + 1) in data }).toEqual({
          ref: w.ref,
          file: e.value,
          held: true,
        });
      }
    }
  });
});
