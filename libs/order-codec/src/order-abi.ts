import type { Hex } from 'viem';
import type { Order } from './order';

/**
 * `abi.encode(order)` without viem's generic encoder.
 *
 * Why: every quote encodes its order twice (the quote hash and the `deposit` calldata), and viem's
 * `encodeAbiParameters` (parameter preparation, hex padding, concatenation, hex → bytes for the
 * hash) was a large share of the quote-engine's CPU under load. Order is fully static (uintN,
 * bytes32, bool), so its encoding is simply one left-padded 32-byte word per field in struct order
 * (ORDER_ABI_COMPONENTS), and a static tuple argument sits in place after a function's selector.
 *
 * The words are written as bytes (what keccak256 takes); the hex form is derived from them, rather
 * than writing hex and parsing it back for the hash. viem stays the
 * reference: order-abi.spec.ts checks every field across its full range against
 * `encodeAbiParameters`, and that whatever we reject viem rejects too.
 */
export const ORDER_ABI_BYTES = 23 * 32;

type UintBits = 8 | 16 | 64 | 256;
const UINT_MAX: Record<UintBits, bigint> = { 8: 0xffn, 16: 0xffffn, 64: (1n << 64n) - 1n, 256: (1n << 256n) - 1n };
/** The largest number written without a bigint: the field's maximum, or the largest safe integer. */
const NUMBER_MAX: Record<UintBits, number> = { 8: 0xff, 16: 0xffff, 64: Number.MAX_SAFE_INTEGER, 256: Number.MAX_SAFE_INTEGER };

/** Nibble value of an ASCII hex digit (either case); -1 for anything else. */
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  NIBBLE['0123456789abcdef'.charCodeAt(i)] = i;
  NIBBLE['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/** The ABI encoding of `order`: 736 bytes. Throws a plain Error naming the first field out of range. */
export function encodeOrder(order: Order): Uint8Array {
  // A zeroed slice of Node's shared pool: an ArrayBuffer of its own costs as much as the encoding.
  const out = Buffer.allocUnsafe(ORDER_ABI_BYTES).fill(0);
  const view = new DataView(out.buffer, out.byteOffset, ORDER_ABI_BYTES);
  putUint(out, view, 0, order.version, 8, 'version');
  putBytes32(out, 1, order.salt, 'salt');
  putUint(out, view, 2, order.srcChainId, 64, 'srcChainId');
  putUint(out, view, 3, order.dstChainId, 64, 'dstChainId');
  putBytes32(out, 4, order.srcToken, 'srcToken');
  putBytes32(out, 5, order.dstToken, 'dstToken');
  putUint(out, view, 6, order.amountIn, 256, 'amountIn');
  putUint(out, view, 7, order.amountOut, 256, 'amountOut');
  putUint(out, view, 8, order.minAmountOut, 256, 'minAmountOut');
  putBytes32(out, 9, order.recipient, 'recipient');
  putBytes32(out, 10, order.refundAddress, 'refundAddress');
  putUint(out, view, 11, order.gasDrop, 256, 'gasDrop');
  putUint(out, view, 12, order.tradeType, 8, 'tradeType');
  putUint(out, view, 13, order.slippageBps, 16, 'slippageBps');
  putUint(out, view, 14, order.srcSlippageBps, 16, 'srcSlippageBps');
  putUint(out, view, 15, order.dstGasNative, 256, 'dstGasNative');
  putUint(out, view, 16, order.sponsorGas, 256, 'sponsorGas');
  putBool(out, 17, order.gasless, 'gasless');
  putBool(out, 18, order.sponsorFees, 'sponsorFees');
  putBytes32(out, 19, order.referrersHash, 'referrersHash');
  putUint(out, view, 20, order.issuedAt, 64, 'issuedAt');
  putUint(out, view, 21, order.expiresAt, 64, 'expiresAt');
  putBytes32(out, 22, order.depositTarget, 'depositTarget');
  return out;
}

/**
 * The same encoding as `0x` and 1472 lowercase hex digits (what a `deposit(order)` call carries
 * after its selector). A caller that already holds the order's encoding (it hashed the order)
 * passes it, and the order is not encoded a second time.
 */
export function encodeOrderHex(order: Order, encoded: Uint8Array = encodeOrder(order)): Hex {
  return `0x${orderWordsHex(encoded)}`;
}

/** An encoding's words as lowercase hex without `0x` (Node's own hex writer: a copy, no per-byte JavaScript). */
export function orderWordsHex(encoded: Uint8Array): string {
  return Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength).toString('hex');
}

/**
 * A uintN word. Like viem, an integer number or a bigint is accepted for any width (the Order type
 * uses numbers for the 8- and 16-bit fields); a fraction, NaN, a negative value or one of 2^N or
 * more is refused.
 */
function putUint(out: Uint8Array, view: DataView, word: number, value: bigint | number, bits: UintBits, field: string): void {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0 && value <= NUMBER_MAX[bits]) {
      let end = word * 32 + 31;
      for (let v = value; v > 0; v = Math.floor(v / 256)) out[end--] = v % 256;
      return;
    }
    if (!Number.isInteger(value)) throw new Error(`order.${field} must be an integer (uint${bits}), got ${value}`);
    value = BigInt(value); // an integer beyond 2^53: exact as a bigint, range-checked below
  }
  if (typeof value !== 'bigint') throw new Error(`order.${field} must be an integer (uint${bits}), got ${typeof value}`);
  if (value < 0n || value > UINT_MAX[bits]) throw new Error(`order.${field} is out of range for uint${bits} (0 to 2^${bits}-1): ${value}`);
  // Most amounts fit in the word's last eight bytes: one native store.
  if (value <= UINT_MAX[64]) {
    view.setBigUint64(word * 32 + 24, value);
    return;
  }
  const hex = value.toString(16);
  let end = word * 32 + 31;
  let i = hex.length;
  for (; i >= 2; i -= 2) out[end--] = (NIBBLE[hex.charCodeAt(i - 2)]! << 4) | NIBBLE[hex.charCodeAt(i - 1)]!;
  if (i === 1) out[end] = NIBBLE[hex.charCodeAt(0)]!;
}

/** A bytes32 word: exactly `0x` and 64 hex digits (either case). */
function putBytes32(out: Buffer, word: number, value: Hex, field: string): void {
  if (typeof value !== 'string') throw new Error(`order.${field} must be a bytes32 (0x and 64 hex digits), got ${typeof value}`);
  // Node's hex decoder stops at the first character that is not a hex digit: fewer than 32 bytes written.
  if (value.length !== 66 || value[0] !== '0' || value[1] !== 'x' || out.write(value.slice(2), word * 32, 32, 'hex') !== 32)
    throw new Error(`order.${field} must be a bytes32 (0x and 64 hex digits), got ${JSON.stringify(value)}`);
}

function putBool(out: Uint8Array, word: number, value: boolean, field: string): void {
  if (typeof value !== 'boolean') throw new Error(`order.${field} must be true or false, got ${typeof value} ${String(value)}`);
  if (value) out[word * 32 + 31] = 1;
}
