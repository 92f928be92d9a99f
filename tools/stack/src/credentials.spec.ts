import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { restrictSecretFile, writeSecretFile } from './credentials';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('secret files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'secret-files-'));
    chmodSync(dir, 0o755);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a secret as 0600 in a 0700 folder, narrowing both when they were wider', () => {
    const file = join(dir, 'credentials', 'x.password');
    writeSecretFile(file, 'one');
    expect([mode(file), mode(join(dir, 'credentials'))]).toEqual([0o600, 0o700]);
    chmodSync(file, 0o644);
    chmodSync(join(dir, 'credentials'), 0o755);
    writeSecretFile(file, 'two');
    expect([mode(file), mode(join(dir, 'credentials')), readFileSync(file, 'utf8')]).toEqual([0o600, 0o700, 'two']);
  });

  it("leaves a shared folder's rights alone when asked, and narrows an existing file by itself", () => {
    const file = join(dir, 'devnet.json');
    writeFileSync(file, '{}', { mode: 0o644 });
    chmodSync(file, 0o644);
    restrictSecretFile(file);
    expect(mode(file)).toBe(0o600);
    chmodSync(file, 0o644);
    writeSecretFile(file, '{"a":1}', { folder: 'as is' });
    expect([mode(file), mode(dir)]).toEqual([0o600, 0o755]);
    expect(() => restrictSecretFile(join(dir, 'none.json'))).not.toThrow();
  });
});
