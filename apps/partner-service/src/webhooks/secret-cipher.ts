import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Webhook secrets at rest: AES-256-GCM under a key from the configuration (WEBHOOK_SECRET_KEY).
 * Signing needs a secret back in clear, so it is encrypted, not hashed. Each ciphertext records the
 * id of its key (a digest of the key, not the key), so older keys listed in WEBHOOK_SECRET_KEYS_OLD
 * still open what they sealed while the service moves every row to the current key. The partner id
 * is authenticated with the ciphertext: a sealed secret copied to another partner's row does not open.
 */
export interface SecretKeys {
  current: Buffer;
  old: Buffer[];
}

export interface SealedSecret {
  keyId: string;
  iv: Uint8Array;
  tag: Uint8Array;
  ciphertext: Uint8Array;
}

export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** 32 bytes written as 64 hex digits or as base64 (standard or url alphabet); anything else throws. */
export function parseSecretKey(text: string): Buffer {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const key = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  throw new SecretKeyError(`must be ${KEY_BYTES} random bytes as 64 hex digits or base64 (e.g. \`openssl rand -base64 32\`)`);
}

/** Comma-separated keys (empty: none); the first bad one throws, naming its position. */
export function parseSecretKeyList(text: string): Buffer[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  return parts.map((p, i) => {
    try {
      return parseSecretKey(p);
    } catch (err) {
      throw new SecretKeyError(`key ${i + 1}: ${(err as Error).message}`);
    }
  });
}

/** A short public name of a key: the first 8 bytes of a domain-separated SHA-256 of it. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('xchain webhook secret key\0').update(key).digest('hex').slice(0, 16);
}

export class WebhookSecretCipher {
  readonly keyId: string;
  private readonly current: Buffer;
  private readonly byId = new Map<string, Buffer>();

  constructor(keys: SecretKeys) {
    this.current = keys.current;
    this.keyId = keyIdOf(keys.current);
    for (const k of keys.old) this.byId.set(keyIdOf(k), k);
    this.byId.set(this.keyId, keys.current);
  }

  seal(partnerId: string, secret: string): SealedSecret {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(partnerId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return { keyId: this.keyId, iv, tag: cipher.getAuthTag(), ciphertext };
  }

  /** The secret in clear; throws a SecretKeyError that says which key is missing or that it does not open. */
  open(partnerId: string, sealed: SealedSecret): string {
    const key = this.byId.get(sealed.keyId);
    if (!key) {
      throw new SecretKeyError(
        `the webhook secret is encrypted under key ${sealed.keyId}, which is neither WEBHOOK_SECRET_KEY (${this.keyId}) nor in WEBHOOK_SECRET_KEYS_OLD`,
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(partnerId, 'utf8'));
      decipher.setAuthTag(sealed.tag);
      return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretKeyError(
        `the webhook secret does not decrypt with key ${sealed.keyId}: it was altered or belongs to another partner`,
      );
    }
  }
}
