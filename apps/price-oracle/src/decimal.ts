/** A price as an integer and a power of ten: `price × 10^expo` (Pyth's representation). */
export interface ScaledPrice {
  price: bigint;
  expo: number;
}

/** The finest exponent a published price may have (PriceSchema's bound). */
export const MIN_EXPO = -36;

const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/**
 * "3512.27" → { price: 351227n, expo: -2 }, exactly: the digits are read as text, never through a
 * float (0.1 + 0.2 is not 0.3 in binary, and a price file must mean what it says). Only plain,
 * positive decimals are accepted: no sign, exponent, leading zeros or surrounding spaces.
 */
export function parseDecimalPrice(text: string): ScaledPrice {
  const m = DECIMAL.exec(text);
  if (!m) throw new Error(`${JSON.stringify(text)} is not a plain decimal number`);
  const frac = m[2] ?? '';
  if (frac.length > -MIN_EXPO) throw new Error(`${text} has more than ${-MIN_EXPO} decimals`);
  const price = BigInt(`${m[1]}${frac}`);
  if (price === 0n) throw new Error(`${text} is not a positive price`);
  return { price, expo: frac.length === 0 ? 0 : -frac.length }; // never -0
}

/** The same value with at least `digits` significant digits (appends zeros: always exact). */
export function withPrecision(p: ScaledPrice, digits: number): ScaledPrice {
  const extra = Math.max(0, digits - p.price.toString().length);
  if (p.expo - extra < MIN_EXPO) throw new RangeError(`cannot give ${p.price}e${p.expo} ${digits} digits within 10^${MIN_EXPO}`);
  return { price: p.price * 10n ** BigInt(extra), expo: p.expo - extra };
}
