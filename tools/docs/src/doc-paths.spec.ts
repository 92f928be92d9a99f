import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@xchain/stack';

/** Every repository path a document names in backticks or a link, so a moved or renamed file cannot leave a document pointing nowhere. */
const TOP = ['apps', 'libs', 'tools', 'test', 'prisma', 'docker', 'k8s', 'scripts', 'config', 'contracts', 'docs', 'ops'];
const PATH = new RegExp(`(?:\`|\\]\\()((?:${TOP.join('|')})/[A-Za-z0-9_./-]+?)(?::\\d+)?(?:\`|\\)|#)`, 'g');

function documents(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const decisions = readdirSync(join(ROOT, 'docs', 'decisions'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/decisions/${f}`);
  return ['README.md', ...docs, ...decisions];
}

describe('paths named in the documents', () => {
  it('exist in the repository', () => {
    const missing: string[] = [];
    for (const doc of documents()) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      for (const m of text.matchAll(PATH)) {
        const path = m[1]!.replace(/[.,;]+$/, '');
        if (/[*<>{}]/.test(path) || path.includes('…')) continue; // a pattern, not a file
        if (!existsSync(join(ROOT, path))) missing.push(`${doc}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
