/**
 * Integer money arithmetic. Prices are USD per whole token scaled by 1e18 ("E18"): enough
 * precision for a 1e-18 USD token and for a BTC-priced one, with no floating point anywhere.
 */
export const E18 = 10n ** 18n;
export const BPS = 10_000n;
const MICROS_PER_E18 = 10n ** 12n;

// Every conversion needs 10^decimals; building it each time was the largest cost of a quote.
const POW10: readonly bigint[] = Array.from({ length: 78 }, (_, i) => 10n ** BigInt(i));

export function pow10(n: number): bigint {
  return POW10[n] ?? 10n ** BigInt(n);
}

/** ⌈n / d⌉ for d > 0 (bigint division truncates toward zero, which is the ceiling below zero). */
export function ceilDiv(n: bigint, d: bigint): bigint {
  return n <= 0n ? n / d : (n - 1n) / d + 1n;
}

/**
 * ⌊√n⌋ for n ≥ 0, by Newton's method on integers. A float square root only seeds the first
 * guess (it is never the answer): any positive guess x gives ⌊(x + ⌊n/x⌋)/2⌋ ≥ ⌊√n⌋, so after one
 * integer step the iterate is at or above the root and falls to it, and from a guess good to
 * ~50 bits that takes two or three steps instead of the six or more from a power of two.
 */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new RangeError('square root of a negative number');
  if (n < 2n) return n;
  const guess = Math.sqrt(Number(n));
  // Past ~1.8e308 the float is infinite: seed from the bit length instead (≥ √n).
  let x = Number.isFinite(guess) ? BigInt(Math.ceil(guess)) : 1n << BigInt((n.toString(16).length * 4 + 1) >> 1);
  x = (x + n / x) >> 1n;
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

export function mulDivFloor(a: bigint, b: bigint, d: bigint): bigint {
  if (d <= 0n) throw new RangeError('division by a non-positive number');
  return (a * b) / d;
}

export function mulDivCeil(a: bigint, b: bigint, d: bigint): bigint {
  if (d <= 0n) throw new RangeError('division by a non-positive number');
  const p = a * b;
  return p === 0n ? 0n : (p - 1n) / d + 1n;
}

/** `price × 10^expo` USD per whole unit (Pyth style) → USD E18 per whole unit, floored. */
export function priceE18FromExpo(price: bigint, expo: number): bigint {
  if (price <= 0n) throw new RangeError('price must be positive');
  const shift = 18 + expo;
  return shift >= 0 ? price * pow10(shift) : price / pow10(-shift);
}

export interface Priced {
  decimals: number;
  priceE18: bigint;
}

// The two value conversions divide by a power of ten, always positive: they skip mulDiv's check.

/** USD E18 value of an amount, floored (used for what the user gets). */
export function valueFloor(amount: bigint, t: Priced): bigint {
  return (amount * t.priceE18) / pow10(t.decimals);
}

/** USD E18 value of an amount, rounded up (used for what the user pays). */
export function valueCeil(amount: bigint, t: Priced): bigint {
  const p = amount * t.priceE18;
  return p === 0n ? 0n : (p - 1n) / pow10(t.decimals) + 1n;
}

/** Token amount worth a USD E18 value, floored (an amount the user receives). */
export function amountFloor(valueE18: bigint, t: Priced): bigint {
  return mulDivFloor(valueE18, pow10(t.decimals), t.priceE18);
}

/** Token amount worth a USD E18 value, rounded up (an amount the user pays or is charged). */
export function amountCeil(valueE18: bigint, t: Priced): bigint {
  return mulDivCeil(valueE18, pow10(t.decimals), t.priceE18);
}

export function e18ToMicros(valueE18: bigint): bigint {
  return valueE18 / MICROS_PER_E18;
}

export function microsToE18(micros: bigint): bigint {
  return micros * MICROS_PER_E18;
}

export function bpsCeil(value: bigint, bps: bigint): bigint {
  return mulDivCeil(value, bps, BPS);
}

export function bpsFloor(value: bigint, bps: bigint): bigint {
  return mulDivFloor(value, bps, BPS);
}

export function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

export function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
