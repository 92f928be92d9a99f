import { readFileSync } from 'node:fs';
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

/**
 * Compiles Solidity files with solc-js (WASM, offline), resolving relative imports from disk and
 * package imports from node_modules. Returns every contract by name.
 */
export function compileContracts(files: string[], root: string): Record<string, CompiledContract> {
  // solc is CommonJS and heavy; load it only when a test compiles.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require('solc') as {
    compile(input: string, opts: { import: (p: string) => { contents: string } | { error: string } }): string;
  };
  const sources = Object.fromEntries(files.map((f) => [f, { content: readFileSync(join(root, f), 'utf8') }]));
  const input = {
    language: 'Solidity',
    sources,
    settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const findImport = (path: string) => {
    for (const candidate of [join(root, path), join(root, 'node_modules', path), resolve(dirname(join(root, files[0]!)), path)]) {
      try {
        return { contents: readFileSync(candidate, 'utf8') };
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
