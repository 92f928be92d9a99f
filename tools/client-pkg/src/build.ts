import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/**
 * Builds libs/client as the package a wallet team installs (`@xchain/client`): ES modules, CommonJS,
 * a browser build and type declarations, with libs/contracts (the schemas every answer is checked
 * against) compiled in, so the tarball needs only public npm packages (zod).
 *
 *   esm/      ES modules for Node (`import`)
 *   cjs/      CommonJS (`require`)
 *   browser/  the ES modules with source-address.browser.js in place of source-address.js: no node:http
 *   types/    declarations, for all three
 * Each holds `client/src/…` and `contracts/src/…`, the monorepo's layout, so a stack trace points
 * at the same file names as the source.
 */

/** Bare imports the built files may keep: the package's dependencies, and Node's built-ins in the Node builds. */
const DEPENDENCIES = new Set(['zod']);
/** The monorepo aliases compiled into the package, and where they land in each build. */
const ALIASES: Record<string, string> = { '@xchain/contracts': 'contracts/src/index.js' };
const ENTRY = 'client/src/index.js';

export interface Release {
  name: string;
  version: string;
  description: string;
  license: string;
  dependencies: Record<string, string>;
}

/** Compiles the package into `outDir` (emptied first) and writes its package.json; returns its release. */
export function buildClientPackage(root: string, outDir: string): Release {
  const release = JSON.parse(readFileSync(join(root, 'libs/client/release.json'), 'utf8')) as Release;
  rmSync(outDir, { recursive: true, force: true });
  const work = join(outDir, '.tsconfig');
  mkdirSync(work, { recursive: true });
  const tsc = join(root, 'node_modules/.bin/tsc');
  const compile = (name: string, options: Record<string, unknown>) => {
    const config = join(work, `${name}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          types: ['node'],
          typeRoots: [join(root, 'node_modules/@types')],
          strict: true,
          skipLibCheck: true,
          esModuleInterop: true,
          noEmitOnError: true,
          rootDir: join(root, 'libs'),
          baseUrl: root,
          paths: { '@xchain/contracts': ['libs/contracts/src/index.ts'] },
          ...options,
        },
        files: [join(root, 'libs/client/src/index.ts'), join(root, 'libs/client/src/source-address.browser.ts')],
      }),
    );
    execFileSync(tsc, ['-p', config], { cwd: root, stdio: 'inherit' });
  };
  compile('esm', {
    module: 'ESNext',
    moduleResolution: 'bundler',
    outDir: join(outDir, 'esm'),
    declaration: true,
    declarationDir: join(outDir, 'types'),
  });
  compile('cjs', { module: 'CommonJS', moduleResolution: 'node10', outDir: join(outDir, 'cjs') });
  rmSync(work, { recursive: true, force: true });

  rewriteImports(join(outDir, 'esm'), '.js', true);
  rewriteImports(join(outDir, 'types'), '.d.ts', true);
  rewriteImports(join(outDir, 'cjs'), '.js', false);
  cpSync(join(outDir, 'esm'), join(outDir, 'browser'), { recursive: true });
  cpSync(join(outDir, 'esm/client/src/source-address.browser.js'), join(outDir, 'browser/client/src/source-address.js'));
  for (const tree of ['esm', 'browser']) writeFileSync(join(outDir, tree, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(outDir, 'cjs/package.json'), '{ "type": "commonjs" }\n');
  assertSelfContained(outDir);

  const entry = (tree: string, ext = '.js') => `./${tree}/${ENTRY.replace(/\.js$/, ext)}`;
  const manifest = {
    ...release,
    type: 'commonjs',
    main: entry('cjs'),
    module: entry('esm'),
    browser: entry('browser'),
    types: entry('types', '.d.ts'),
    exports: {
      '.': {
        types: entry('types', '.d.ts'),
        browser: entry('browser'),
        import: entry('esm'),
        require: entry('cjs'),
        default: entry('esm'),
      },
      './package.json': './package.json',
    },
    sideEffects: false,
    files: ['esm', 'cjs', 'browser', 'types', 'README.md', 'CHANGELOG.md'],
    engines: { node: '>=20.3' },
  };
  writeFileSync(join(outDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const doc of ['README.md', 'CHANGELOG.md']) cpSync(join(root, 'libs/client', doc), join(outDir, doc));
  return release;
}

/** `npm pack`s a built package into `destination`; the tarball's path. */
export function packClientPackage(outDir: string, destination: string): string {
  mkdirSync(destination, { recursive: true });
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], { cwd: outDir, encoding: 'utf8' });
  const [packed] = JSON.parse(out) as { filename: string }[];
  if (!packed) throw new Error(`npm pack printed no file: ${out}`);
  return join(destination, packed.filename);
}

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\brequire\(\s*|\bimport\s+)(['"])([^'"]+)\2/g;

/** Every import and require specifier in a built file. */
export function specifiersOf(code: string): string[] {
  return [...code.matchAll(SPECIFIER)].map((m) => m[3]!);
}

/**
 * The monorepo aliases become relative paths; in the ES module and declaration trees every
 * relative specifier gets its file extension (Node's ES modules resolve no bare `./errors`).
 */
function rewriteImports(tree: string, ext: '.js' | '.d.ts', withExtensions: boolean): void {
  for (const file of filesUnder(tree).filter((f) => f.endsWith(ext))) {
    const dir = dirname(file);
    const code = readFileSync(file, 'utf8').replace(SPECIFIER, (whole, lead: string, q: string, spec: string) => {
      const alias = ALIASES[spec];
      let target = alias ? relativeSpecifier(dir, join(tree, alias)) : spec;
      if (withExtensions && target.startsWith('.') && !/\.(c|m)?js$/.test(target)) {
        const base = join(dir, target);
        if (existsSync(`${base}${ext}`)) target = `${target}.js`;
        else if (existsSync(join(base, `index${ext}`))) target = `${target}/index.js`;
        else throw new Error(`${relative(tree, file)}: ${spec} resolves to no built file`);
      }
      return target === spec ? whole : `${lead}${q}${target}${q}`;
    });
    writeFileSync(file, code);
  }
}

/** Fails the build when a built file imports anything but the package's own files, its dependencies and (outside the browser build) Node's built-ins. */
function assertSelfContained(outDir: string): void {
  const stray: string[] = [];
  for (const tree of ['esm', 'cjs', 'browser', 'types']) {
    for (const file of filesUnder(join(outDir, tree)).filter((f) => /\.(js|d\.ts)$/.test(f))) {
      for (const spec of specifiersOf(readFileSync(file, 'utf8'))) {
        if (spec.startsWith('.') || DEPENDENCIES.has(spec.split('/')[0]!)) continue;
        if (spec.startsWith('node:') && tree !== 'browser') continue;
        stray.push(`${relative(outDir, file)} imports ${spec}`);
      }
    }
  }
  if (stray.length) throw new Error(`the client package is not self-contained:\n${stray.join('\n')}`);
}

function relativeSpecifier(fromDir: string, to: string): string {
  const rel = relative(fromDir, to).split(sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
