import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import { GENERATED_DOCS } from './generated-docs';

/** `docs:generate`: writes every generated document; with `--check`, only says which are stale. */
function main(argv: string[]): number {
  const check = argv.includes('--check');
  let stale = 0;
  for (const doc of GENERATED_DOCS) {
    const file = join(ROOT, doc.path);
    const text = doc.render(ROOT);
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // Not written yet.
    }
    if (current === text) continue;
    stale++;
    if (check) process.stderr.write(`${doc.path} is stale: run npm run docs:generate\n`);
    else {
      writeFileSync(file, text);
      process.stdout.write(`wrote ${doc.path}\n`);
    }
  }
  return check && stale > 0 ? 1 : 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
