import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A 32-byte key (base64) kept in a 0600 file, made on first use and read back after, so data it
 * encrypted (the webhook secrets in the local stack's database) stays readable across restarts.
 * Created exclusively: two starts racing read the same key.
 */
export function secretKeyFile(file: string): string {
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return readFileSync(file, 'utf8').trim();
}
