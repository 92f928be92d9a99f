import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where a webhook may not point: loopback, private, link-local (cloud metadata at 169.254.169.254),
 * carrier-grade NAT, multicast, reserved and documentation ranges, IPv4 and IPv6. A partner's URL
 * is a request our network makes for them, so it must not reach anything inside it (SSRF).
 */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** An IPv4 address written inside IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it is. */
function unmapped(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip;
}

/** Judges addresses: public ones pass; loopback passes too only when `allowLoopback` (local stack, tests). */
export class AddressGuard {
  constructor(private readonly allowLoopback: boolean) {}

  allows(address: string): boolean {
    const ip = unmapped(address.replace(/^\[|\]$/g, ''));
    const family = isIP(ip);
    if (family === 0) return false;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.allowLoopback && LOOPBACK.check(ip, type)) return true;
    return !PRIVATE.check(ip, type);
  }

  /**
   * A DNS lookup for http(s).request that refuses a host if any of its addresses is not allowed,
   * and connects to the addresses it checked (no second resolution a rebinding DNS could change).
   */
  lookup(): LookupFunction {
    return ((hostname: string, options: { all?: boolean; family?: number | string } | number, callback: (...args: unknown[]) => void) => {
      const opts = typeof options === 'number' ? { family: options } : (options ?? {});
      dnsLookup(hostname, { family: opts.family === 6 || opts.family === 'IPv6' ? 6 : opts.family === 4 || opts.family === 'IPv4' ? 4 : 0, all: true }, (err, addresses: LookupAddress[]) => {
        if (err) return callback(err);
        const refused = addresses.find((a) => !this.allows(a.address));
        if (refused || addresses.length === 0) {
          const e = Object.assign(new Error(`${hostname} resolves to ${refused?.address ?? 'nothing'}, a private address`), { code: 'EPRIVATEADDRESS' });
          return callback(e);
        }
        if (opts.all) return callback(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      });
    }) as unknown as LookupFunction;
  }
}
