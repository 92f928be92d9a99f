import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secretKeyFile } from './secret-key-file';

describe('secretKeyFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'secsse-keyfile-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a 32-byte key readable by its owner only, and gives the same one back after', () => {
    const file = join(dir, 'data', 'webhook-secret.key');
    const key = secretKeyFile(file);
    expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(secretKeyFile(file)).toBe(key);
    expect(readFileSync(file, 'utf8').trim()).toBe(key);
    expect(secretKeyFile(join(dir, 'other.key'))).not.toBe(key);
  });
});
