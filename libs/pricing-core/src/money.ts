/**
 * Integer money arithmetic. Prices are USD per whole token scaled by 1e18 ("E18"): enough
 * precision for a 1e-18 USD token and for a BTC-priced one, with no floating point anywhere.
 */
export const E18 = 10n ** 18n;
export const BPS = 10_000n;
const MICROS_PER_E18 = 10n ** 12n;

export function pow10(n: number): bigint {
  return 10n ** BigInt(n);
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

/** USD E18 value of an amount, floored (used for what the user gets). */
export function valueFloor(amount: bigint, t: Priced): bigint {
  return mulDivFloor(amount, t.priceE18, pow10(t.decimals));
}

/** USD E18 value of an amount, rounded up (used for what the user pays). */
export function valueCeil(amount: bigint, t: Priced): bigint {
  return mulDivCeil(amount, t.priceE18, pow10(t.decimals));
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
