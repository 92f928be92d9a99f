import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, posix, relative } from 'node:path';
import { type ImageName, imageSpec } from './images';

/**
 * Lays out what one image runs, from a built checkout (`bash scripts/build.sh` done, node_modules
 * installed): the compiled files its entry reaches through `require` and nothing else of dist/, the
 * production packages those files need (and theirs, by the lockfile), the files it reads
 * (configuration, migrations), a `main.js` that starts it and a `healthcheck.js` for the image's
 * HEALTHCHECK. The Dockerfile's build stage runs this (through assemble-runtime) and copies the
 * result into the final image; the runtime layout test runs the same function into a temporary
 * folder and starts every app from there.
 */
export interface RuntimeLayout {
  image: ImageName;
  out: string;
  /** Compiled files copied from dist/, relative to the root. */
  distFiles: string[];
  /** Lockfile keys (`node_modules/…`) of the packages copied. */
  packages: string[];
}

export function assembleRuntime(root: string, image: ImageName, out: string): RuntimeLayout {
  const spec = imageSpec(image);
  const entries = [spec.entry, ...(spec.alsoRuns ?? [])];
  for (const e of entries) {
    if (!existsSync(join(root, e))) throw new Error(`${e} is missing under ${root}: build first (bash scripts/build.sh)`);
  }
  if (existsSync(out) && readdirSync(out).length > 0) throw new Error(`${out} is not empty`);
  mkdirSync(out, { recursive: true });

  const distFiles = [...requireClosure(root, entries)].sort();
  for (const f of distFiles) copy(root, out, f);
  for (const f of spec.files) {
    if (!existsSync(join(root, f))) throw new Error(`${f} is missing under ${root}`);
    copy(root, out, f);
  }
  const packages = packageClosure(root, distFiles);
  for (const key of packages) {
    cpSync(join(root, key), join(out, key), {
      recursive: true,
      // Nested node_modules are lockfile keys of their own, copied only if the closure has them.
      filter: (src) => relative(join(root, key), src) !== 'node_modules' && !neverLoaded(relative(root, src)),
    });
  }
  writeFileSync(join(out, 'package.json'), `${JSON.stringify({ name: `xchain-${image}`, private: true, type: 'commonjs' }, null, 2)}\n`);
  writeFileSync(join(out, 'main.js'), `'use strict';\n// Starts the ${image} image's program.\nrequire('./${spec.entry}');\n`);
  writeFileSync(join(out, 'healthcheck.js'), healthcheckScript(image));
  return { image, out, distFiles, packages };
}

/** The image's HEALTHCHECK: exit 0 when the app's `/readyz` answers 200 (a one-shot job has nothing to check). */
export function healthcheckScript(image: ImageName): string {
  const health = imageSpec(image).health;
  if (!health) return `'use strict';\n// ${image} runs once and exits; it has no health port.\nprocess.exit(0);\n`;
  return [
    `'use strict';`,
    `// Exit 0 when ${image} answers /readyz with 200 within 3 s (its port: ${health.portVar}, default ${health.port}).`,
    `const port = process.env.${health.portVar} || '${health.port}';`,
    'fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(3000) }).then(',
    '  (res) => process.exit(res.ok ? 0 : 1),',
    '  () => process.exit(1),',
    ');',
    '',
  ].join('\n');
}

/** Files of a package the running app never loads. Licences stay, whatever their extension. */
const NEVER_LOADED = [
  // Source maps (Node reads them only with --enable-source-maps, which the images do not set).
  /\.map$/,
  // Type declarations and TypeScript sources some packages ship beside their compiled files.
  /\.d\.[cm]?ts$/,
  /\.[cm]?ts$/,
  // Documentation.
  /\.md$/i,
  // Prisma's query compilers for the databases we do not use (the generated clients load PostgreSQL's).
  /^node_modules\/@prisma\/client\/runtime\/.*\.(cockroachdb|mysql|sqlite|sqlserver)\./,
];
const LICENCE = /(^|\/)(licen[cs]e|notice|copying)[^/]*$/i;

/** Whether a package file (path from the root) is one the app never loads, so the image leaves it out. */
export function neverLoaded(path: string): boolean {
  return !LICENCE.test(path) && NEVER_LOADED.some((re) => re.test(path));
}

const RELATIVE_REQUIRE = /require\("(\.{1,2}\/[^"]*)"\)/g;

/**
 * Every compiled file the entries reach through relative `require`s (swc turns the `@xchain/*`
 * aliases and dynamic imports into those), entries included; paths relative to the root.
 */
export function requireClosure(root: string, entries: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.endsWith('.js')) continue;
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(RELATIVE_REQUIRE)) {
      const target = resolveRequire(root, posix.join(posix.dirname(file), m[1]!));
      if (!target) throw new Error(`${file} requires ${m[1]}, which is not in the build`);
      queue.push(target);
    }
  }
  return seen;
}

function resolveRequire(root: string, base: string): string | undefined {
  for (const candidate of [base, `${base}.js`, `${base}.json`, posix.join(base, 'index.js')]) {
    const p = join(root, candidate);
    if (existsSync(p) && statSync(p).isFile()) return candidate;
  }
  return undefined;
}

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const readLock = (root: string) =>
  (JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }).packages;

const BARE_REQUIRE = /require\("([^."][^"]*)"\)/g;

/**
 * The production packages the given compiled files need: the packages they require, and what those
 * declare (dependencies, optional dependencies, peers), resolved as Node resolves them in the
 * lockfile's tree. Only packages `productionPackages` keeps qualify: one the lockfile marks as dev
 * only, or as reached only through an optional peer, is never a runtime need.
 */
export function packageClosure(root: string, files: Iterable<string>): string[] {
  const lock = readLock(root);
  const allowed = new Set(productionPackages(root));
  const seeds = new Set<string>();
  for (const f of files) {
    if (!f.endsWith('.js')) continue;
    for (const m of readFileSync(join(root, f), 'utf8').matchAll(BARE_REQUIRE)) {
      const spec = m[1]!;
      if (spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]!)) continue;
      const parts = spec.split('/');
      seeds.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
    }
  }
  const keep = new Set<string>();
  const queue: { from: string; name: string; optional: boolean }[] = [...seeds].map((name) => ({ from: '', name, optional: false }));
  while (queue.length > 0) {
    const { from, name, optional } = queue.pop()!;
    const key = resolvePackage(lock, from, name);
    if (key && keep.has(key)) continue;
    if (!key || !allowed.has(key)) {
      const entry = key ? lock[key] : undefined;
      if (optional || entry?.dev || entry?.devOptional || entry?.optional) continue;
      throw new Error(`${name} (needed by ${from || 'the compiled code'}) is not an installed production package`);
    }
    keep.add(key);
    const entry = lock[key]!;
    for (const d of Object.keys(entry.dependencies ?? {})) queue.push({ from: key, name: d, optional: false });
    for (const d of Object.keys(entry.optionalDependencies ?? {})) queue.push({ from: key, name: d, optional: true });
    for (const d of Object.keys(entry.peerDependencies ?? {}))
      queue.push({ from: key, name: d, optional: entry.peerDependenciesMeta?.[d]?.optional === true });
  }
  return [...keep].sort();
}

/** Where `name` resolves from the package at lockfile key `from` ('' for the app's own code): its own node_modules, then each enclosing one. */
function resolvePackage(lock: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let base = from; ;) {
    const key = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (lock[key]) return key;
    if (!base) return undefined;
    const at = base.lastIndexOf('/node_modules/');
    base = at < 0 ? '' : base.slice(0, at);
  }
}

/**
 * The lockfile's production packages, as `npm install --omit=dev` would install them, less those
 * only an optional peer of a production package reaches (`devOptional`: the Prisma CLI and
 * TypeScript, which the clients never load). An optional package this platform did not get (another
 * CPU's binary) is left out; a missing required one is an error, since the image would not start.
 */
export function productionPackages(root: string): string[] {
  const keys: string[] = [];
  for (const [key, entry] of Object.entries(readLock(root))) {
    if (key === '' || entry.dev || entry.devOptional || entry.link) continue;
    if (!existsSync(join(root, key))) {
      if (entry.optional) continue;
      throw new Error(`${key} is a production package but is not installed: run npm install`);
    }
    keys.push(key);
  }
  return keys.sort();
}

function copy(root: string, out: string, path: string): void {
  mkdirSync(dirname(join(out, path)), { recursive: true });
  cpSync(join(root, path), join(out, path), { recursive: true });
}
