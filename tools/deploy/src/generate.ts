import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { generatedFiles } from './generated-files';

/**
 * `node dist/tools/deploy/src/generate.js [--check]`: writes the generated deployment files (NATS
 * configurations, k8s/base's copies of config/); with --check, writes nothing and exits 1 naming
 * every file that differs.
 */
function main(): number {
  const check = process.argv.includes('--check');
  const root = resolve(__dirname, '../../../..');
  const stale: string[] = [];
  for (const [path, content] of Object.entries(generatedFiles(root))) {
    const file = join(root, path);
    const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (current === content) continue;
    stale.push(path);
    if (!check) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }
  for (const path of stale) console.log(`${check ? 'differs' : 'wrote'} ${path}`);
  return check && stale.length > 0 ? 1 : 0;
}

process.exit(main());
