import { createHash, randomBytes } from 'node:crypto';

/**
 * Session tokens and API keys: 256 random bits, base64url, with a recognisable prefix so a leaked
 * one is easy to spot in a scanner. Only sha256 hex digests are stored or sent over NATS; the
 * gateway hashes what it receives the same way.
 */
export const SESSION_TOKEN_PREFIX = 'xps_';
export const API_KEY_PREFIX = 'xk_';
/** Characters of the key shown in listings (`xk_` and 8 more): identifies it, reveals 48 of 256 bits. */
const SHOWN_KEY_CHARS = API_KEY_PREFIX.length + 8;

export function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function newSessionToken(): string {
  return SESSION_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function newApiKey(): { secret: string; shown: string } {
  const secret = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { secret, shown: secret.slice(0, SHOWN_KEY_CHARS) };
}
