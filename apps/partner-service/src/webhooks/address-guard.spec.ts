import { AddressGuard } from './address-guard';

describe('webhook address guard', () => {
  const prod = new AddressGuard(false);
  const local = new AddressGuard(true);

  it('lets public addresses through and stops private, reserved and metadata ones', () => {
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '[2606:4700:4700::1111]'])
      expect([ip, prod.allows(ip)]).toEqual([ip, true]);
    for (const ip of [
      '10.0.0.1',
      '127.0.0.1',
      '127.8.8.8',
      '169.254.169.254',
      '172.31.255.255',
      '192.168.0.10',
      '100.100.100.100',
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '0.0.0.0',
      '::',
      '::1',
      'fd12::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      'not-an-ip',
    ]) {
      expect([ip, prod.allows(ip)]).toEqual([ip, false]);
    }
    expect(prod.allows('172.32.0.1')).toBe(true); // just outside 172.16/12
  });

  it('judges the IPv4 address an IPv6 one carries: compatible, mapped, translated, NAT64, 6to4 and Teredo forms', () => {
    // As a URL's host normalises them: each carries 127.0.0.1, 169.254.169.254, 0.0.0.0 or a reserved client address.
    for (const ip of [
      '::7f00:1',
      '::ffff:0:7f00:1',
      '::ffff:7f00:1',
      '2002:7f00:1::',
      '2002:a9fe:a9fe::',
      '2001::1',
      '::127.0.0.1',
      '2002:a00:1::1',
    ]) {
      expect([ip, prod.allows(ip)]).toEqual([ip, false]);
    }
    // The same forms around a public address pass (93.184.216.34 = 5db8:d822; a Teredo client is stored inverted).
    for (const ip of ['::ffff:5db8:d822', '2002:5db8:d822::1', '2001:0:5db8:d822::a247:27dd'])
      expect([ip, prod.allows(ip)]).toEqual([ip, true]);
  });

  it('lets loopback through when allowed, and nothing else private', () => {
    expect(['127.0.0.1', '::1', '::ffff:127.0.0.1'].map((ip) => local.allows(ip))).toEqual([true, true, true]);
    expect(['10.0.0.1', '169.254.169.254', 'fd12::1'].map((ip) => local.allows(ip))).toEqual([false, false, false]);
  });

  it('refuses a host name that resolves to a private address', async () => {
    const lookup = prod.lookup() as unknown as (h: string, o: object, cb: (err: NodeJS.ErrnoException | null, a?: unknown) => void) => void;
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => lookup('localhost', {}, (e) => resolve(e)));
    expect(err?.code).toBe('EPRIVATEADDRESS');
    expect(err?.message).toMatch(/^localhost resolves to .*a private address$/);
    const ok = await new Promise<unknown>((resolve) =>
      (local.lookup() as unknown as typeof lookup)('localhost', { all: true }, (e, a) => resolve(e ?? a)),
    );
    expect(Array.isArray(ok)).toBe(true);
  });
});
