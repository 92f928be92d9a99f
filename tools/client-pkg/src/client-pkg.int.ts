import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import { type Esbuild, bundleForBrowser } from './browser-check';
import { buildClientPackage, packClientPackage } from './build';
import { scratchProject } from './scratch';

jest.setTimeout(120_000);

/** The esbuild a wallet team's project would bundle with (not a dependency of the monorepo). */
const ESBUILD = 'esbuild@0.28.2';

/**
 * The packed client installed into a project outside the monorepo: it loads through `require`
 * and `import`, its declarations type-check a caller, and its browser entry bundles without a
 * single Node built-in (the check itself is shown to catch one).
 */
describe('the @xchain/client package, installed from its tarball', () => {
  let work: string;
  let scratch: string;
  let esbuild: Esbuild;
  const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: scratch, encoding: 'utf8' });

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'xchain-client-pkg-'));
    buildClientPackage(ROOT, join(work, 'pkg'));
    scratch = scratchProject([packClientPackage(join(work, 'pkg'), work), ESBUILD]);
    esbuild = createRequire(join(scratch, 'package.json'))('esbuild') as Esbuild;
  }, 300_000);

  afterAll(() => {
    for (const dir of [work, scratch]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('needs only public packages (its manifest names zod alone) and says which build serves import, require, the browser and types', () => {
    const manifest = JSON.parse(readFileSync(join(scratch, 'node_modules/@xchain/client/package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies)).toEqual(['zod']);
    expect(manifest.exports['.']).toEqual({
      types: './types/client/src/index.d.ts',
      browser: './browser/client/src/index.js',
      import: './esm/client/src/index.js',
      require: './cjs/client/src/index.js',
      default: './esm/client/src/index.js',
    });
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('loads through require (CommonJS) and import (ES modules), each from its own build, with every method and helper', () => {
    const probe = `JSON.stringify([c.XchainClient, c.gaslessSwap, c.signGaslessQuote, c.followOrder, new c.XchainClient({ baseUrl: 'http://127.0.0.1:1' }).getQuote].map((f) => typeof f))`;
    const want = JSON.stringify(['function', 'function', 'function', 'function', 'function']);
    const cjs = node(['-e', `const c = require('@xchain/client'); console.log(${probe}); console.log(require.resolve('@xchain/client'))`]);
    expect(cjs.split('\n')).toEqual([want, join(scratch, 'node_modules/@xchain/client/cjs/client/src/index.js'), '']);
    const esm = node([
      '--input-type=module',
      '-e',
      `import * as c from '@xchain/client'; console.log(${probe}); console.log(import.meta.resolve('@xchain/client'))`,
    ]);
    expect(esm.split('\n')).toEqual([want, `file://${join(scratch, 'node_modules/@xchain/client/esm/client/src/index.js')}`, '']);
  });

  it("types a caller's code: a typo in a request field fails to compile", () => {
    const caller = (field: string) => `import { XchainClient, gaslessSwap, type GaslessSigner } from '@xchain/client';
export async function swap(signer: GaslessSigner) {
  const api = new XchainClient({ baseUrl: 'https://api.example' });
  const { order } = await gaslessSwap(api, { src_chain: 'base', dst_chain: 'arbitrum', src_token: '0x1', dst_token: '0x2',
    trade_type: 'TRADE_TYPE_EXACT_INPUT', ${field}: '1', recipient: '0x3', refund_address: '0x3' }, signer);
  const status: 'fulfilled' | string = order.status;
  return status;
}
`;
    const tsc = (source: string) => {
      writeFileSync(join(scratch, 'caller.mts'), source);
      const compilerOptions = {
        noEmit: true,
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['es2023', 'dom'],
        types: [],
      };
      writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['caller.mts'] }));
      try {
        execFileSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: scratch, encoding: 'utf8' });
        return '';
      } catch (err) {
        return String((err as { stdout?: string }).stdout);
      }
    };
    expect(tsc(caller('amount'))).toBe('');
    expect(tsc(caller('amuont'))).toMatch(/amuont/);
  });

  it('bundles for the browser from the package name with no Node built-in, through its browser build', async () => {
    const bundle = await bundleForBrowser(esbuild, `export { XchainClient, gaslessSwap } from '@xchain/client';`, scratch);
    expect(bundle.nodeImports).toEqual([]);
    expect(bundle.inputs.some((f) => f.includes('@xchain/client/browser/'))).toBe(true);
    expect(bundle.inputs.some((f) => f.includes('/zod/'))).toBe(true);
    expect(bundle.bytes).toBeGreaterThan(0);
  });

  it('catches a Node built-in: a fixture importing node:crypto, and the Node build of the package itself (node:http)', async () => {
    const fixture = join(ROOT, 'tools/client-pkg/fixtures/imports-node-crypto.mjs');
    expect((await bundleForBrowser(esbuild, `export * from ${JSON.stringify(fixture)};`, scratch)).nodeImports).toEqual([
      `${fixture} imports node:crypto`,
    ]);
    const nodeBuild = join(scratch, 'node_modules/@xchain/client/esm/client/src/index.js');
    const reached = (await bundleForBrowser(esbuild, `export * from ${JSON.stringify(nodeBuild)};`, scratch)).nodeImports;
    expect(reached).toEqual(expect.arrayContaining([expect.stringMatching(/source-address\.js imports node:http$/)]));
  });
});
