import { createHmac, randomBytes } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A partner's signing secret: 256 random bits, base64url, with a prefix that tells what it is. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: the key is the secret string
 * (UTF-8, prefix included), the message the timestamp, a dot and the exact body bytes sent. The
 * timestamp is signed so a receiver can refuse an old delivery replayed at it; each attempt
 * signs again with its own time.
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const t = Math.floor(unixSeconds);
  const mac = createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');
  return `t=${t},v1=${mac}`;
}
