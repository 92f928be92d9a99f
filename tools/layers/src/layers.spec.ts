import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { circles, layerReports, relativeImports } from './import-graph';

const ROOT = resolve(__dirname, '../../..');

describe('the services are layered', () => {
  it.each(layerReports(ROOT).map((r) => [r.srcDir, r] as const))('%s: no circle of imports between files or folders', (_dir, report) => {
    expect(report.fileCircles).toEqual([]);
    expect(report.unitCircles).toEqual([]);
  });
});

describe('the layer check', () => {
  it('reads every form of relative import, types included', () => {
    const src = `import { a } from './a';\nimport type { B } from "../b";\nexport * from './c';\nconst d = import('./d');\nimport './e';\nimport x from 'zod';`;
    expect(relativeImports(src)).toEqual(['./a', '../b', './c', './d', './e']);
  });

  it('finds a circle of files, and a circle of folders made of imports that are each fine alone', () => {
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    const root = mkdtempSync(join(tmpdir(), 'layers-'));
    try {
      const file = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      };
      file('apps/svc/src/low/x.ts', `import { y } from '../high/y';\nexport const x = 1;`);
      file('apps/svc/src/high/y.ts', `export const y = 2;`);
      file('apps/svc/src/high/z.ts', `import { x } from '../low/x';`);
      file('apps/svc/src/low/x.spec.ts', `import { z } from '../high/z';`); // tests are not layers
      const [report] = layerReports(root);
      expect(report!.fileCircles).toEqual([]);
      expect(report!.unitCircles).toEqual([
        {
          units: ['high/', 'low/'],
          ties: ['apps/svc/src/high/z.ts -> apps/svc/src/low/x.ts', 'apps/svc/src/low/x.ts -> apps/svc/src/high/y.ts'],
        },
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
