import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import { readServiceEnvs, undescribed } from './config-doc';
import { GENERATED_DOCS } from './generated-docs';

describe('generated documents', () => {
  it.each(GENERATED_DOCS.map((d) => [d.path, d] as const))('%s is what `npm run docs:generate` writes from the code now', (path, doc) => {
    expect(readFileSync(join(ROOT, path), 'utf8')).toBe(doc.render(ROOT));
  });

  it('describes every variable of every env schema', () => {
    const envs = readServiceEnvs(ROOT);
    expect(envs.map((e) => e.service)).toEqual(expect.arrayContaining(['every service', 'gateway', 'quote-engine']));
    expect(envs.every((e) => e.schemas.every((s) => s.variables.length > 0))).toBe(true);
    expect(undescribed(envs)).toEqual([]);
  });

  it('gives no variable a default its own range refuses (zod does not check defaults; the same value set explicitly would be)', () => {
    const outside = readServiceEnvs(ROOT).flatMap((e) =>
      e.schemas.flatMap((s) =>
        s.variables.flatMap((v) => {
          const range = / (\d+)–(\d+)$/.exec(v.type);
          if (!range || v.default === undefined || !/^\d+$/.test(v.default)) return [];
          const d = BigInt(v.default);
          return d < BigInt(range[1]!) || d > BigInt(range[2]!) ? [`${e.service} ${v.name}=${v.default} (${v.type})`] : [];
        }),
      ),
    );
    expect(outside).toEqual([]);
  });
});
