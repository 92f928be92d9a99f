import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDevnetState, writeDevnetState } from './state-file';

const mode = (file: string) => statSync(file).mode & 0o777;

describe('the devnet state file (<DATA_DIR>/devnet.json)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'devnet-state-'));
    chmodSync(dir, 0o755);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const devnet = { chains: new Map([['base', { rpcUrl: 'http://127.0.0.1:8545', chainId: 8453 }]]), rpcUrls: 'base=http://127.0.0.1:8545' };
  const keys = { RELAYER_PRIVATE_KEYS: `0x${'11'.repeat(32)}`, FILLER_PRIVATE_KEYS: `0x${'22'.repeat(32)}` };

  it('is readable by its owner only, as it holds the relayer and filler keys; the data folder keeps its rights', () => {
    const file = join(dir, 'devnet.json');
    writeDevnetState(file, devnet as never, keys);
    expect(mode(file)).toBe(0o600);
    expect(mode(dir)).toBe(0o755);
    expect(readDevnetState(file)?.serviceEnv).toMatchObject(keys);
  });

  it('records the CCTP attestation URL when the devnet runs the attester, and nothing when it does not', () => {
    const file = join(dir, 'devnet.json');
    writeDevnetState(file, { ...devnet, attestationUrl: 'http://127.0.0.1:8548' } as never, keys);
    expect(readDevnetState(file)?.attestationUrl).toBe('http://127.0.0.1:8548');
    writeDevnetState(file, devnet as never, keys);
    expect(readDevnetState(file)).not.toHaveProperty('attestationUrl');
  });

  it('narrows a file an older version left readable by others when it writes it again', () => {
    const file = join(dir, 'devnet.json');
    writeFileSync(file, '{}', { mode: 0o644 });
    chmodSync(file, 0o644);
    writeDevnetState(file, devnet as never, keys);
    expect(mode(file)).toBe(0o600);
  });
});
