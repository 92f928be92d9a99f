import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Abi, Hex } from 'viem';

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

/** Where compiled outputs are kept between processes (every Jest suite is a fresh module registry). */
const CACHE_DIR = ['node_modules', '.cache', 'xchain-solc'];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface CacheEntry {
  /** Every file an import resolved to, with the hash of what it held then. */
  imports: [string, string][];
  result: Record<string, CompiledContract>;
}

/**
 * Compiles Solidity files with solc-js (WASM, offline), resolving relative imports from disk and
 * package imports from node_modules. Returns every contract by name. A compile costs seconds of
 * CPU, so its output is kept under node_modules/.cache, keyed by the compiler's version, the
 * settings and the sources, and used again only while every file it imported is unchanged.
 */
export function compileContracts(files: string[], root: string): Record<string, CompiledContract> {
  const sources = Object.fromEntries(files.map((f) => [f, { content: readFileSync(join(root, f), 'utf8') }]));
  const settings = { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } };
  const solcVersion = (JSON.parse(readFileSync(require.resolve('solc/package.json'), 'utf8')) as { version: string }).version;
  const cacheFile = join(root, ...CACHE_DIR, `${sha256(JSON.stringify({ solcVersion, settings, sources }))}.json`);
  const cached = readCache(cacheFile);
  if (cached) return cached;
  const imports: [string, string][] = [];
  const result = compileNow(files, root, sources, settings, (path, contents) => imports.push([path, sha256(contents)]));
  writeCache(cacheFile, { imports, result });
  return result;
}

function readCache(file: string): Record<string, CompiledContract> | undefined {
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as CacheEntry;
    return entry.imports.every(([path, hash]) => sha256(readFileSync(path, 'utf8')) === hash) ? entry.result : undefined;
  } catch {
    return undefined; // none yet, unreadable, or an import gone: compile
  }
}

function writeCache(file: string, entry: CacheEntry): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    // Whole or not at all: another process may be reading or writing the same entry.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(entry));
    renameSync(tmp, file);
  } catch {
    // a cache that cannot be written only costs the next compile
  }
}

function compileNow(
  files: string[],
  root: string,
  sources: Record<string, { content: string }>,
  settings: object,
  imported: (path: string, contents: string) => void,
): Record<string, CompiledContract> {
  // solc is CommonJS and heavy; load it only when a test compiles.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require('solc') as {
    compile(input: string, opts: { import: (p: string) => { contents: string } | { error: string } }): string;
  };
  const input = { language: 'Solidity', sources, settings };
  const findImport = (path: string) => {
    for (const candidate of [join(root, path), join(root, 'node_modules', path), resolve(dirname(join(root, files[0]!)), path)]) {
      try {
        const contents = readFileSync(candidate, 'utf8');
        imported(candidate, contents);
        return { contents };
      } catch {
        // try the next location
      }
    }
    return { error: `import ${path} not found` };
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const result: Record<string, CompiledContract> = {};
  for (const byName of Object.values(output.contracts)) {
    for (const [name, c] of Object.entries(byName)) result[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  }
  return result;
}
