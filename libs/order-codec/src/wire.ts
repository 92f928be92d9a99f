import type { OrderWire } from '@xchain/contracts';
import { type Hex, isHex } from 'viem';
import { ORDER_ABI_COMPONENTS, type Order, type OrderReferrer, hashReferrers } from './order';

/** The order as the API returns it (OrderWireSchema in @xchain/contracts): snake_case, every value a string; plus the referrers list. */
export type { OrderWire };

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** Each struct field with its wire name, worked out once (GetQuote converts every order). */
const WIRE_FIELDS = ORDER_ABI_COMPONENTS.map(({ name, type }) => ({ name, type, key: snake(name) }));

export function orderToWire(order: Order, referrers: readonly OrderReferrer[]): OrderWire {
  const wire: Record<string, unknown> = {};
  for (const { name, key } of WIRE_FIELDS) {
    const v = order[name];
    wire[key] = typeof v === 'string' ? v : String(v);
  }
  wire['referrers'] = referrers.map((r) => ({ account: r.account, bps: String(r.bps) }));
  // Built from the ABI components, which the codec's spec checks against OrderWireSchema's keys.
  return wire as OrderWire;
}

/** Parses a wire order back, checking every field's type and that the referrers match their hash. */
export function orderFromWire(wire: OrderWire): { order: Order; referrers: OrderReferrer[] } {
  const out: Record<string, unknown> = {};
  for (const { name, type, key } of WIRE_FIELDS) {
    const raw = (wire as Record<string, unknown>)[key];
    if (typeof raw !== 'string') throw new Error(`order.${key} is missing`);
    out[name] = parseField(type, raw, key);
  }
  const list = wire['referrers'];
  const referrers = Array.isArray(list)
    ? list.map((r, i) => ({
        account: parseField('bytes32', r.account, `referrers[${i}].account`) as Hex,
        bps: Number(parseField('uint16', r.bps, `referrers[${i}].bps`)),
      }))
    : [];
  const order = out as unknown as Order;
  if (hashReferrers(referrers) !== order.referrersHash) throw new Error('order.referrers do not match referrers_hash');
  return { order, referrers };
}

function parseField(type: string, raw: string, field: string): bigint | number | boolean | Hex {
  if (type === 'bool') {
    if (raw !== 'true' && raw !== 'false') throw new Error(`${field} must be "true" or "false"`);
    return raw === 'true';
  }
  if (type === 'bytes32') {
    if (!isHex(raw) || raw.length !== 66) throw new Error(`${field} must be 32 bytes of hex`);
    return raw.toLowerCase() as Hex;
  }
  if (!/^(0|[1-9][0-9]*)$/.test(raw)) throw new Error(`${field} must be a decimal integer`);
  const bits = Number(type.replace('uint', ''));
  const n = BigInt(raw);
  if (n >= 1n << BigInt(bits)) throw new Error(`${field} exceeds ${type}`);
  return bits <= 16 ? Number(n) : n;
}
