import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

/** The repository root (the folder holding nx.json) above `from`, whether run from src or dist. */
export function repoRoot(from: string = __dirname): string | undefined {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'nx.json'))) return dir;
  }
  return undefined;
}

/**
 * Resolves a configured file: relative paths from the repository root, so the service finds
 * `config/prices.json` whatever directory it is started from; outside a checkout (an image
 * without nx.json), from the working directory.
 */
export function resolveConfigPath(path: string): string {
  return isAbsolute(path) ? path : join(repoRoot() ?? process.cwd(), path);
}
