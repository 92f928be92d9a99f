import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileContracts } from './compile';

jest.setTimeout(120_000);

describe('compileContracts', () => {
  let root: string;
  const cacheDir = () => join(root, 'node_modules', '.cache', 'xchain-solc');
  const entry = () =>
    join(
      cacheDir(),
      readdirSync(cacheDir()).find((f) => f.endsWith('.json'))!,
    );
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'solc-cache-'));
    mkdirSync(join(root, 'contracts'));
    writeFileSync(join(root, 'contracts/A.sol'), 'pragma solidity ^0.8.0;\nimport "./B.sol";\ncontract A is B {}\n');
    writeFileSync(join(root, 'contracts/B.sol'), 'pragma solidity ^0.8.0;\ncontract B { uint256 public x = 1; }\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('keeps a compile on disk and uses it again while the sources and every import are unchanged', () => {
    const first = compileContracts(['contracts/A.sol'], root);
    expect(Object.keys(first).sort()).toEqual(['A', 'B']);
    // Mark the kept output: a second compile that reads it returns the mark.
    const kept = JSON.parse(readFileSync(entry(), 'utf8'));
    kept.result.A.bytecode = '0xfeed';
    writeFileSync(entry(), JSON.stringify(kept));
    expect(compileContracts(['contracts/A.sol'], root)['A']!.bytecode).toBe('0xfeed');
    // An imported file changed: compiled again.
    writeFileSync(join(root, 'contracts/B.sol'), 'pragma solidity ^0.8.0;\ncontract B { uint256 public x = 2; }\n');
    const again = compileContracts(['contracts/A.sol'], root);
    expect(again['A']!.bytecode).toMatch(/^0x[0-9a-f]{100,}$/);
    expect(again['A']!.bytecode).not.toBe(first['A']!.bytecode);
  });
});
