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

/** The 16 bytes of an IPv6 address (`::` and a trailing dotted quad included); undefined when it is not one. */
function ipv6Bytes(ip: string): number[] | undefined {
  if (isIP(ip) !== 6) return undefined;
  let text = ip;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const words = tail === undefined ? h : [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

const v4 = (b: number[]) => b.join('.');
const zero = (b: number[]) => b.every((x) => x === 0);

/**
 * The IPv4 addresses an IPv6 address carries, by the standard embeddings a relay or a stack may
 * route to: IPv4-compatible (::a.b.c.d), IPv4-mapped and -translated (::ffff:…, ::ffff:0:…), NAT64
 * (64:ff9b::/96), 6to4 (2002:AABB:CCDD::) and Teredo (2001:0::, server and obfuscated client).
 */
function embeddedIPv4(ip: string): string[] {
  const b = ipv6Bytes(ip);
  if (!b) return [];
  const out: string[] = [];
  const last = b.slice(12, 16);
  if (zero(b.slice(0, 12))) out.push(v4(last));
  if (zero(b.slice(0, 10)) && b[10] === 0xff && b[11] === 0xff) out.push(v4(last));
  if (zero(b.slice(0, 8)) && b[8] === 0xff && b[9] === 0xff && zero(b.slice(10, 12))) out.push(v4(last));
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(b.slice(4, 12))) out.push(v4(last));
  if (b[0] === 0x20 && b[1] === 0x02) out.push(v4(b.slice(2, 6)));
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) out.push(v4(b.slice(4, 8)), v4(last.map((x) => x ^ 0xff)));
  return out;
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
    if (PRIVATE.check(ip, type)) return false;
    // An IPv6 address that carries an IPv4 one may be routed to it: that one must be public too.
    return embeddedIPv4(ip).every((inner) => !PRIVATE.check(inner, 'ipv4'));
  }

  /**
   * A DNS lookup for http(s).request that refuses a host if any of its addresses is not allowed,
   * and connects to the addresses it checked (no second resolution a rebinding DNS could change).
   */
  lookup(): LookupFunction {
    return ((hostname: string, options: { all?: boolean; family?: number | string } | number, callback: (...args: unknown[]) => void) => {
      const opts = typeof options === 'number' ? { family: options } : (options ?? {});
      dnsLookup(
        hostname,
        { family: opts.family === 6 || opts.family === 'IPv6' ? 6 : opts.family === 4 || opts.family === 'IPv4' ? 4 : 0, all: true },
        (err, addresses: LookupAddress[]) => {
          if (err) return callback(err);
          const refused = addresses.find((a) => !this.allows(a.address));
          if (refused || addresses.length === 0) {
            const e = Object.assign(new Error(`${hostname} resolves to ${refused?.address ?? 'nothing'}, a private address`), {
              code: 'EPRIVATEADDRESS',
            });
            return callback(e);
          }
          if (opts.all) return callback(null, addresses);
          return callback(null, addresses[0]!.address, addresses[0]!.family);
        },
      );
    }) as unknown as LookupFunction;
  }
}
