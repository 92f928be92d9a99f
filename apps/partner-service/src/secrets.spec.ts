import { API_KEY_PREFIX, SESSION_TOKEN_PREFIX, newApiKey, newSessionToken, sha256Hex } from './secrets';

describe('secrets', () => {
  it('makes session tokens and API keys of 256 random bits, never twice the same', () => {
    const tokens = new Set(Array.from({ length: 1000 }, newSessionToken));
    expect(tokens.size).toBe(1000);
    for (const t of tokens) {
      expect(t.startsWith(SESSION_TOKEN_PREFIX)).toBe(true);
      expect(Buffer.from(t.slice(SESSION_TOKEN_PREFIX.length), 'base64url')).toHaveLength(32);
    }
    const { secret, shown } = newApiKey();
    expect(secret.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(Buffer.from(secret.slice(API_KEY_PREFIX.length), 'base64url')).toHaveLength(32);
    // what listings show names the key but leaves 208 of its 256 bits unknown
    expect(shown).toBe(secret.slice(0, 11));
  });

  it('hashes the way the gateway does (sha256, hex), so only hashes travel and are stored', () => {
    expect(sha256Hex('xk_abc')).toMatch(/^[0-9a-f]{64}$/);
    expect(sha256Hex('xk_abc')).not.toBe(sha256Hex('xk_abd'));
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
