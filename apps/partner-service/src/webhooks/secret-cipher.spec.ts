import { randomBytes } from 'node:crypto';
import { SecretKeyError, WebhookSecretCipher, keyIdOf, parseSecretKey, parseSecretKeyList } from './secret-cipher';

describe('parseSecretKey', () => {
  const key = randomBytes(32);

  it('takes 32 bytes as hex, base64 or base64url', () => {
    expect(parseSecretKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretKey(key.toString('hex').toUpperCase())).toEqual(key);
    expect(parseSecretKey(key.toString('base64'))).toEqual(key);
    expect(parseSecretKey(` ${key.toString('base64url')}\n`)).toEqual(key);
  });

  it('refuses anything else, saying what it wants', () => {
    for (const bad of [
      '',
      'secret',
      randomBytes(16).toString('hex'),
      randomBytes(31).toString('base64'),
      randomBytes(33).toString('base64'),
      `${key.toString('hex')}00`,
    ]) {
      expect(() => parseSecretKey(bad)).toThrow(/32 random bytes as 64 hex digits or base64/);
    }
  });

  it('reads a comma-separated list, naming a bad entry by its position', () => {
    const other = randomBytes(32);
    expect(parseSecretKeyList('')).toEqual([]);
    expect(parseSecretKeyList(`${key.toString('hex')}, ${other.toString('base64')}`)).toEqual([key, other]);
    expect(() => parseSecretKeyList(`${key.toString('hex')},short`)).toThrow(/^key 2: must be 32 random bytes/);
  });
});

describe('WebhookSecretCipher', () => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);
  const secret = 'whsec_' + randomBytes(32).toString('base64url');

  it('seals under the current key with a fresh iv each time, and opens it again', () => {
    const c = new WebhookSecretCipher({ current: k1, old: [] });
    const a = c.seal('ptn_a', secret);
    const b = c.seal('ptn_a', secret);
    expect(a.keyId).toBe(keyIdOf(k1));
    expect(Buffer.from(a.iv).equals(Buffer.from(b.iv))).toBe(false);
    expect(Buffer.from(a.ciphertext).includes(Buffer.from(secret))).toBe(false);
    expect(c.open('ptn_a', a)).toBe(secret);
    expect(c.open('ptn_a', b)).toBe(secret);
  });

  it('opens with an old key, and names the key it lacks', () => {
    const sealed = new WebhookSecretCipher({ current: k1, old: [] }).seal('ptn_a', secret);
    expect(new WebhookSecretCipher({ current: k2, old: [k1] }).open('ptn_a', sealed)).toBe(secret);
    const without = new WebhookSecretCipher({ current: k2, old: [] });
    expect(() => without.open('ptn_a', sealed)).toThrow(SecretKeyError);
    expect(() => without.open('ptn_a', sealed)).toThrow(
      `encrypted under key ${keyIdOf(k1)}, which is neither WEBHOOK_SECRET_KEY (${keyIdOf(k2)}) nor in WEBHOOK_SECRET_KEYS_OLD`,
    );
  });

  it('refuses a secret moved to another partner, or altered', () => {
    const c = new WebhookSecretCipher({ current: k1, old: [] });
    const sealed = c.seal('ptn_a', secret);
    expect(() => c.open('ptn_b', sealed)).toThrow(/does not decrypt with key .*: it was altered or belongs to another partner/);
    const flipped = Buffer.from(sealed.ciphertext);
    flipped[0]! ^= 1;
    expect(() => c.open('ptn_a', { ...sealed, ciphertext: flipped })).toThrow(SecretKeyError);
    expect(() => c.open('ptn_a', { ...sealed, tag: Buffer.from(sealed.tag).subarray(0, 4) })).toThrow(SecretKeyError);
  });

  it('names keys by a digest that does not reveal them', () => {
    expect(keyIdOf(k1)).toMatch(/^[0-9a-f]{16}$/);
    expect(keyIdOf(k1)).not.toBe(keyIdOf(k2));
    expect(k1.toString('hex')).not.toContain(keyIdOf(k1));
  });
});
