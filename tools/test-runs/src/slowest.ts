import { existsSync, readFileSync } from 'node:fs';
import { ROOT } from '@xchain/stack';
import { type JestJson, slowest, suiteRuns } from './jest-results';

/** `node slowest.js <jest --json output> [n]`: the n (default 10) slowest suites of that run, slowest first. */
function main(): number {
  const [file, n = '10'] = process.argv.slice(2);
  if (!file || !existsSync(file)) return 0; // Jest wrote no result (it failed before): nothing to rank
  const runs = suiteRuns(JSON.parse(readFileSync(file, 'utf8')) as JestJson, ROOT);
  console.log(`[test] the ${n} slowest of ${runs.length} suites:`);
  for (const r of slowest(runs, Number(n))) console.log(`[test]   ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${r.suite}`);
  return 0;
}

process.exit(main());
