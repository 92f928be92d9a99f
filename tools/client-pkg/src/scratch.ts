import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A new project outside the monorepo (a temp dir) with `packages` installed by npm, as a wallet
 * team installs the client: nothing resolves from the monorepo's node_modules. Packages npm has
 * already fetched come from its cache (`--prefer-offline`); install scripts do not run.
 */
export function scratchProject(packages: string[], timeoutMs = 240_000): string {
  const dir = mkdtempSync(join(tmpdir(), 'xchain-client-scratch-'));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'scratch', version: '1.0.0', private: true }, null, 2)}\n`);
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...packages], {
    cwd: dir,
    timeout: timeoutMs,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return dir;
}
