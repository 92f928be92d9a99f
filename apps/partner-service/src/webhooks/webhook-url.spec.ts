import { RpcError } from '@xchain/contracts';
import { parseWebhookUrl } from './webhook-url';

const prod = { allowHttpLocalhost: false };
const local = { allowHttpLocalhost: true };

function refusal(url: string, opts = prod): string {
  try {
    parseWebhookUrl(url, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(RpcError);
    const status = (err as RpcError).status;
    expect(status.code).toBe(3);
    const details = JSON.stringify(status.details);
    expect(details).toContain('INVALID_WEBHOOK_URL');
    expect(details).toContain('"field":"url"');
    return (status.details.find((d) => 'field_violations' in d) as { field_violations: { description: string }[] }).field_violations[0]!
      .description;
  }
  throw new Error(`${url} was accepted`);
}

describe('webhook URL rules', () => {
  it('accepts https URLs, with a port, path and query, normalised', () => {
    expect(parseWebhookUrl('https://hooks.example.com/xchain?tenant=7', prod)).toBe('https://hooks.example.com/xchain?tenant=7');
    expect(parseWebhookUrl('HTTPS://Hooks.Example.COM:8443', prod)).toBe('https://hooks.example.com:8443/');
    expect(parseWebhookUrl('https://93.184.216.34/in', prod)).toBe('https://93.184.216.34/in');
  });

  it('refuses plain http, other schemes and relative URLs', () => {
    expect(refusal('http://hooks.example.com/x')).toBe('must use https');
    expect(refusal('ftp://hooks.example.com/x')).toBe('must use https');
    expect(refusal('javascript:alert(1)')).toBe('must use https');
    expect(refusal('/relative')).toBe('is not an absolute URL');
    expect(refusal('not a url')).toBe('is not an absolute URL');
  });

  it('refuses credentials and fragments', () => {
    expect(refusal('https://user:pw@hooks.example.com/')).toMatch(/credentials/);
    expect(refusal('https://user@hooks.example.com/')).toMatch(/credentials/);
    expect(refusal('https://hooks.example.com/#frag')).toMatch(/fragment/);
  });

  it('refuses URLs over 2048 characters', () => {
    const base = 'https://hooks.example.com/';
    expect(parseWebhookUrl(base + 'a'.repeat(2048 - base.length), prod)).toHaveLength(2048);
    expect(refusal(base + 'a'.repeat(2049 - base.length))).toMatch(/2048/);
  });

  it('refuses private, loopback, link-local and reserved IP hosts, IPv4 and IPv6', () => {
    for (const host of [
      '10.1.2.3',
      '127.0.0.1',
      '169.254.169.254',
      '172.16.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '0.0.0.0',
      '[::1]',
      '[fd00::1]',
      '[fe80::1]',
      '[::ffff:10.0.0.1]',
      'localhost',
      'api.localhost',
    ]) {
      expect([host, refusal(`https://${host}/hook`)]).toEqual([host, 'points at a private, loopback or reserved address']);
    }
  });

  it('allows http on 127.0.0.1/localhost only when the local stack says so', () => {
    expect(refusal('http://127.0.0.1:9999/hook')).toBe('must use https');
    expect(parseWebhookUrl('http://127.0.0.1:9999/hook', local)).toBe('http://127.0.0.1:9999/hook');
    expect(parseWebhookUrl('http://localhost:9999/hook', local)).toBe('http://localhost:9999/hook');
    expect(parseWebhookUrl('http://[::1]:9999/hook', local)).toBe('http://[::1]:9999/hook');
    // the allowance is for loopback only, never the private network
    expect(refusal('http://10.0.0.5/hook', local)).toBe('must use https');
    expect(refusal('https://10.0.0.5/hook', local)).toBe('points at a private, loopback or reserved address');
  });
});
