import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX, newWebhookSecret, signatureHeader } from './signing';

/** What a partner's receiver does with the header: recompute and compare, in constant time. */
function verify(secret: string, body: string, header: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.from(`${m[1]}.`, 'utf8'))
    .update(Buffer.from(body, 'utf8'))
    .digest();
  return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'));
}

describe('webhook signatures', () => {
  const body = '{"id":"0xab:1","type":"order.updated"}';

  it('matches a vector computed by another implementation (openssl dgst -sha256 -hmac)', () => {
    // printf '%s' '1700000000.{"id":"0xab:1","type":"order.updated"}' | openssl dgst -sha256 -hmac 'whsec_known-vector-secret'
    expect(signatureHeader('whsec_known-vector-secret', body, 1_700_000_000)).toBe(
      't=1700000000,v1=19f207c5ac554e5b1e7dd050bfc903bf40968765aae6629327ff774c36d045db',
    );
  });

  it('verifies with node:crypto as a receiver would, and fails for another body, time or secret', () => {
    const secret = newWebhookSecret();
    const header = signatureHeader(secret, body, 1_763_900_000.9);
    expect(header.startsWith('t=1763900000,v1=')).toBe(true);
    expect(verify(secret, body, header)).toBe(true);
    expect(verify(secret, `${body} `, header)).toBe(false);
    expect(verify(secret, body, header.replace('t=1763900000', 't=1763900001'))).toBe(false);
    expect(verify(newWebhookSecret(), body, header)).toBe(false);
  });

  it('signs non-ASCII bodies over their UTF-8 bytes', () => {
    const secret = newWebhookSecret();
    const unicode = '{"note":"café ✓"}';
    expect(verify(secret, unicode, signatureHeader(secret, unicode, 1))).toBe(true);
  });

  it('makes 256-bit secrets that never repeat', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(new RegExp(`^${WEBHOOK_SECRET_PREFIX}[A-Za-z0-9_-]{43}$`));
    expect(new Set(Array.from({ length: 100 }, newWebhookSecret)).size).toBe(100);
  });
});
