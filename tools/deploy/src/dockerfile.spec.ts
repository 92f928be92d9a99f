import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT, SERVICE_NODE_FLAGS } from '@xchain/stack';
import { healthcheckScript, neverLoaded, packageClosure, productionPackages, requireClosure } from './runtime-layout';

/** A Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

describe('docker/Dockerfile', () => {
  const all = instructions(readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8'));
  const stages = all.reduce<{ op: string; args: string }[][]>(
    (acc, i) => (i.op === 'FROM' ? [...acc, [i]] : (acc.at(-1)?.push(i), acc)),
    [],
  );
  const build = stages.find((s) => / AS build$/i.test(s[0]!.args))!;
  const final = stages.at(-1)!;

  it('builds once for every app, then lays out the APP’s runtime folder with assemble-runtime', () => {
    expect(stages).toHaveLength(2);
    const runs = build.filter((i) => i.op === 'RUN').map((i) => i.args);
    expect(runs).toContain('bash scripts/build.sh');
    expect(runs.some((r) => r.includes('node dist/tools/deploy/src/assemble-runtime.js "$APP" /runtime'))).toBe(true);
    // APP is declared after the install and the build, so their layers are shared by all six images.
    const appAt = build.findIndex((i) => i.op === 'ARG' && i.args === 'APP');
    expect(appAt).toBeGreaterThan(build.findIndex((i) => i.args === 'bash scripts/build.sh'));
  });

  it("has package.json's postinstall (the dependency patches) in place when it installs the packages", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const script = /^node (\S+)$/.exec(pkg.scripts['postinstall'] ?? '')?.[1];
    expect(script).toBe('scripts/patch-deps.cjs');
    const installAt = build.findIndex((i) => i.op === 'RUN' && i.args.startsWith('npm install'));
    const copied = build.slice(0, installAt).filter((i) => i.op === 'COPY');
    expect(copied.some((i) => i.args.split(/\s+/).slice(0, -1).includes(script!))).toBe(true);
  });

  it('copies only that folder into a Node 24 slim image, runs it as a non-root user, and checks /readyz', () => {
    expect(final[0]!.args).toMatch(/^\$\{NODE_IMAGE\} AS runtime$/);
    expect(all.find((i) => i.op === 'ARG' && i.args.startsWith('NODE_IMAGE='))?.args).toBe('NODE_IMAGE=node:24-bookworm-slim');
    expect(final.filter((i) => i.op === 'COPY' || i.op === 'ADD').map((i) => i.args)).toEqual(['--from=build --chown=0:0 /runtime /app']);
    expect(final.find((i) => i.op === 'WORKDIR')?.args).toBe('/app');
    const user = final.find((i) => i.op === 'USER')!.args;
    expect(user).toMatch(/^[1-9][0-9]*:[1-9][0-9]*$/);
    expect(final.find((i) => i.op === 'HEALTHCHECK')?.args).toMatch(/ CMD \["node", "healthcheck\.js"\]$/);
    // The image runs the app with the same Node flags as the local stack.
    expect(JSON.parse(final.find((i) => i.op === 'ENTRYPOINT')!.args)).toEqual(['node', ...SERVICE_NODE_FLAGS, 'main.js']);
    expect(final.find((i) => i.op === 'ENV')?.args).toContain('HOST=0.0.0.0');
  });

  it('has a build context without installed packages, builds, local data or secrets', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const p of ['node_modules', '**/node_modules', 'dist', '.data', '.test-data', '.git', '**/.env', '**/generated'])
      expect(ignored).toContain(p);
  });
});

describe('the runtime layout', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'layout-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };

  it('takes the compiled files an entry reaches through relative requires, and only those', () => {
    write('dist/apps/a/src/main.js', 'require("./env");\nrequire("../../../libs/x/src");\nrequire("pg");\n');
    write('dist/apps/a/src/env.js', 'Promise.resolve().then(() => require("./lazy"));\n');
    write('dist/apps/a/src/lazy.js', '');
    write('dist/libs/x/src/index.js', 'require("./data.json");\n');
    write('dist/libs/x/src/data.json', '{}');
    write('dist/apps/b/src/main.js', '');
    expect([...requireClosure(dir, ['dist/apps/a/src/main.js'])].sort()).toEqual([
      'dist/apps/a/src/env.js',
      'dist/apps/a/src/lazy.js',
      'dist/apps/a/src/main.js',
      'dist/libs/x/src/data.json',
      'dist/libs/x/src/index.js',
    ]);
    write('dist/apps/b/src/main.js', 'require("./gone");\n');
    expect(() => requireClosure(dir, ['dist/apps/b/src/main.js'])).toThrow(
      'dist/apps/b/src/main.js requires ./gone, which is not in the build',
    );
  });

  it('takes the production packages of the lockfile, not dev ones nor those only an optional peer reaches', () => {
    write(
      'package-lock.json',
      JSON.stringify({
        packages: {
          '': {},
          'node_modules/zod': {},
          'node_modules/pg': {},
          'node_modules/pg/node_modules/nested': {},
          'node_modules/jest': { dev: true },
          'node_modules/typescript': { devOptional: true },
          'node_modules/other-cpu-binary': { optional: true },
          'node_modules/missing': {},
        },
      }),
    );
    for (const p of ['zod', 'pg', 'pg/node_modules/nested', 'jest', 'typescript', 'missing']) write(`node_modules/${p}/package.json`, '{}');
    expect(productionPackages(dir)).toEqual([
      'node_modules/missing',
      'node_modules/pg',
      'node_modules/pg/node_modules/nested',
      'node_modules/zod',
    ]);
    rmSync(join(dir, 'node_modules/missing'), { recursive: true });
    expect(() => productionPackages(dir)).toThrow('node_modules/missing is a production package but is not installed');
  });

  it('takes, of those, only the packages the compiled files require and what they declare', () => {
    write('dist/main.js', 'require("a");\nrequire("@s/b/sub/path");\nrequire("node:fs");\nrequire("path");\nrequire("./x");\n');
    write('dist/x.js', 'require("c");\n');
    write(
      'package-lock.json',
      JSON.stringify({
        packages: {
          '': {},
          'node_modules/a': { dependencies: { d: '1' }, optionalDependencies: { 'gone-binary': '1' } },
          'node_modules/a/node_modules/d': { dependencies: { e: '1' } },
          'node_modules/d': {},
          'node_modules/e': {},
          'node_modules/@s/b': { peerDependencies: { f: '1', ts: '5' }, peerDependenciesMeta: { ts: { optional: true } } },
          'node_modules/c': {},
          'node_modules/f': {},
          'node_modules/ts': { devOptional: true },
          'node_modules/gone-binary': { optional: true },
          'node_modules/unused': {},
        },
      }),
    );
    for (const p of ['a', 'a/node_modules/d', 'd', 'e', '@s/b', 'c', 'f', 'ts', 'unused']) write(`node_modules/${p}/package.json`, '{}');
    expect(packageClosure(dir, ['dist/main.js', 'dist/x.js'])).toEqual([
      'node_modules/@s/b',
      'node_modules/a',
      'node_modules/a/node_modules/d',
      'node_modules/c',
      'node_modules/e',
      'node_modules/f',
    ]);
    write('dist/y.js', 'require("nowhere");\n');
    expect(() => packageClosure(dir, ['dist/y.js'])).toThrow(
      'nowhere (needed by the compiled code) is not an installed production package',
    );
  });

  it('leaves out of the packages what the app never loads: source maps, types, TypeScript sources, docs, other databases’ Prisma compilers', () => {
    for (const p of [
      'node_modules/viem/_cjs/index.js.map',
      'node_modules/viem/_types/index.d.ts',
      'node_modules/x/index.d.mts',
      'node_modules/viem/utils/abi.ts',
      'node_modules/zod/README.md',
      'node_modules/@prisma/client/runtime/query_compiler_fast_bg.mysql.wasm-base64.js',
    ]) {
      expect({ p, left: neverLoaded(p) }).toEqual({ p, left: true });
    }
    for (const p of [
      'node_modules/viem/_cjs/index.js',
      'node_modules/@nestjs/core/index.mjs',
      'node_modules/x/package.json',
      'node_modules/zod/LICENSE.md',
      'node_modules/x/LICENSE',
      'node_modules/@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.js',
      'node_modules/@prisma/client/runtime/client.js',
    ]) {
      expect({ p, left: neverLoaded(p) }).toEqual({ p, left: false });
    }
  });

  it('writes a health check that passes only while /readyz answers 200', async () => {
    let status = 200;
    const server: Server = createServer((req, res) => {
      res.statusCode = req.url === '/readyz' ? status : 404;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    write('healthcheck.js', healthcheckScript('gateway'));
    const check = (env: NodeJS.ProcessEnv) =>
      new Promise<number | null>((resolve) =>
        spawn(process.execPath, [join(dir, 'healthcheck.js')], { env, stdio: 'ignore' }).once('exit', resolve),
      );
    try {
      expect(await check({ GATEWAY_PORT: String(port) })).toBe(0);
      status = 503;
      expect(await check({ GATEWAY_PORT: String(port) })).toBe(1);
      server.close();
      expect(await check({ GATEWAY_PORT: String(port) })).toBe(1);
    } finally {
      server.close();
    }
    write('migrate-check.js', healthcheckScript('migrate'));
    expect(
      await new Promise((resolve) => spawn(process.execPath, [join(dir, 'migrate-check.js')], { stdio: 'ignore' }).once('exit', resolve)),
    ).toBe(0);
  });
});
