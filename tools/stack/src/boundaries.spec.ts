import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './services';

/** The Nx boundary rules really reject what the style guide forbids (lint runs them on every file). */
describe('module boundaries in lint', () => {
  beforeAll(() => {
    execFileSync(join(ROOT, 'node_modules/.bin/nx'), ['show', 'projects'], {
      cwd: ROOT,
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
      stdio: 'ignore',
    });
  }, 60_000);

  // ESLint's config loader needs real dynamic import, which Jest's VM lacks: run the CLI on stdin.
  async function messages(code: string, filePath: string): Promise<string[]> {
    let out: string;
    try {
      out = execFileSync(join(ROOT, 'node_modules/.bin/eslint'), ['--stdin', '--stdin-filename', filePath, '--format', 'json'], {
        cwd: ROOT,
        input: code,
        env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
      }).toString();
    } catch (err) {
      out = String((err as { stdout?: Buffer }).stdout ?? '');
    }
    const [result] = JSON.parse(out) as { messages: { ruleId: string | null; message: string }[] }[];
    return (result?.messages ?? [])
      .filter((m) => m.ruleId === '@nx/enforce-module-boundaries' || m.ruleId === 'no-restricted-imports')
      .map((m) => m.message);
  }

  it('forbids an app importing another app', async () => {
    const found = await messages(`import { env } from '../../quote-engine/src/env';\nexport const x = env;\n`, 'apps/gateway/src/probe.ts');
    expect(found.length).toBeGreaterThan(0);
  });

  it("forbids importing another service's database client", async () => {
    const found = await messages(
      `import { createQuoteEngineDb } from '@xchain/quote-engine-db';\nexport const x = createQuoteEngineDb;\n`,
      'apps/gateway/src/probe.ts',
    );
    expect(found.join()).toMatch(/scope:gateway/);
  });

  it('forbids framework and I/O imports in domain libs', async () => {
    for (const mod of ['@nestjs/common', 'pg', 'node:fs']) {
      const found = await messages(`import * as m from '${mod}';\nexport const x = m;\n`, 'libs/pricing-core/src/probe.ts');
      expect([mod, found.length > 0]).toEqual([mod, true]);
    }
  });

  it('lets the contracts lib import zod only', async () => {
    expect(await messages(`import { z } from 'zod';\nexport const x = z;\n`, 'libs/contracts/src/probe.ts')).toEqual([]);
    expect(
      (await messages(`import { Injectable } from '@nestjs/common';\nexport const x = Injectable;\n`, 'libs/contracts/src/probe.ts'))
        .length,
    ).toBe(1);
  });
});
