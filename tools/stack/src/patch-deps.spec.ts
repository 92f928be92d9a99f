import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

interface Patch {
  pkg: string;
  file: string;
  from: string;
  to: string;
}
const ROOT = join(__dirname, '..', '..', '..');
// scripts/ is plain Node (it runs before anything is compiled), outside the workspace's projects.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PATCHES, applyPatch } = require(join(ROOT, 'scripts', 'patch-deps.cjs')) as {
  PATCHES: Patch[];
  applyPatch: (nodeModules: string, patch: Patch) => 'applied' | 'already';
};
const NODE_MODULES = join(ROOT, 'node_modules');

/** Runs a script with V8's natives syntax (for %InYoungGeneration), and any other flags, and returns its output. */
function natives(script: string, flags: string[] = []): string {
  return execFileSync(process.execPath, ['--allow-natives-syntax', ...flags, '-e', script], { cwd: ROOT, encoding: 'utf8' }).trim();
}

// A young generation of one fixed size, so every scavenge is one at its largest: V8 only tenures a
// site then.
const SMALL_YOUNG_GENERATION = ['--min-semi-space-size=1', '--max-semi-space-size=1'];

describe('scripts/patch-deps.cjs', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'patch-deps-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The package file as npm installs it: today's file with the patch taken out again. */
  function unpatched(patch: Patch, version = '1.0.0'): string {
    const file = join(dir, patch.pkg, patch.file);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(join(dir, patch.pkg, 'package.json'), JSON.stringify({ name: patch.pkg, version }));
    const current = readFileSync(join(NODE_MODULES, patch.pkg, patch.file), 'utf8');
    writeFileSync(file, current.includes(patch.to) ? current.replace(patch.to, patch.from) : current);
    return file;
  }

  it.each(PATCHES.map((p) => [`${p.pkg}/${p.file}`, p] as const))(
    'applies %s to the installed text once, then leaves it',
    (_name, patch) => {
      const file = unpatched(patch);
      expect(applyPatch(dir, patch)).toBe('applied');
      const patched = readFileSync(file, 'utf8');
      expect(patched).toContain(patch.to);
      expect(patched).not.toContain(patch.from);
      expect(applyPatch(dir, patch)).toBe('already');
      expect(readFileSync(file, 'utf8')).toBe(patched);
    },
  );

  it('stops with the package, its version and the file when the text to patch is gone (an upgrade changed it)', () => {
    const patch = PATCHES[0]!;
    const file = unpatched(patch, '9.9.9');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(patch.from, patch.from.replace('this.reject = (err) =>', 'this.reject = (error) =>')),
    );
    expect(() => applyPatch(dir, patch)).toThrow(
      'patch-deps: ioredis 9.9.9, built/Command.js: the text to patch is not there exactly once',
    );
  });

  it('rests on a V8 behaviour that still holds: a function literal assigned straight to a property is made in old space, one assigned through a local is not', () => {
    const out = natives(`
      function make() { const o = {}; o.direct = () => o; const viaLocal = () => o; o.local = viaLocal; return o; }
      make(); const o = make();
      console.log(JSON.stringify({ direct: %InYoungGeneration(o.direct), local: %InYoungGeneration(o.local) }));
    `);
    expect(JSON.parse(out)).toEqual({ direct: false, local: true });
  });

  it('is in effect in node_modules: a new ioredis Command, an OpenTelemetry context and their closures are young (run `npm run build` if this fails)', () => {
    const out = natives(`
      const { Command } = require('ioredis');
      const { ROOT_CONTEXT, createContextKey } = require('@opentelemetry/api');
      const c = new Command('evalsha', ['sha', 1, 'key', 1, 60]);
      const ctx = ROOT_CONTEXT.setValue(createContextKey('k'), 1);
      console.log(JSON.stringify({
        command: %InYoungGeneration(c), reject: %InYoungGeneration(c.reject),
        context: %InYoungGeneration(ctx), getValue: %InYoungGeneration(ctx.getValue), setValue: %InYoungGeneration(ctx.setValue), deleteValue: %InYoungGeneration(ctx.deleteValue),
      }));
    `);
    expect(JSON.parse(out)).toEqual({ command: true, reject: true, context: true, getValue: true, setValue: true, deleteValue: true });
  });

  it('rests on a V8 behaviour that still holds: an object literal whose objects survived young GCs is then made in old space, an object made by a class is not', () => {
    const out = natives(
      `
      function literal(v) { return { value: v, issues: null }; }
      class Payload { constructor(v) { this.value = v; this.issues = null; } }
      const kept = [];
      for (let i = 0; i < 300000; i++) kept.push(literal(i), new Payload(i));
      // V8 acts on a tenured site in optimized code. Optimized here, at a known point, so the
      // result does not depend on when tiering up happened (one CI run made the last call
      // before that, and the literal came out young).
      %PrepareFunctionForOptimization(literal);
      literal(0);
      %OptimizeFunctionOnNextCall(literal);
      console.log(JSON.stringify({ literal: %InYoungGeneration(literal(1)), byClass: %InYoungGeneration(new Payload(1)) }));
    `,
      SMALL_YOUNG_GENERATION,
    );
    expect(JSON.parse(out)).toEqual({ literal: false, byClass: true });
  });

  it("is in effect in node_modules: a zod pipe's payload is still made young after a run in which every one survived (run `npm run build` if this fails)", () => {
    const out = natives(
      `
      const { z } = require('zod');
      const kept = [];
      let last;
      // .transform() is a pipe; a transform is handed the payload the pipe made.
      const schema = z.string().transform((v, payload) => { last = payload; kept.push(payload); return v; });
      for (let i = 0; i < 300000; i++) schema.parse('x');
      kept.length = 0;
      schema.parse('y');
      console.log(JSON.stringify({ young: %InYoungGeneration(last), value: last.value }));
    `,
      SMALL_YOUNG_GENERATION,
    );
    expect(JSON.parse(out)).toEqual({ young: true, value: 'y' });
  });
});
