/** "3512.27" → { price: 351227n, expo: -2 }: exact, no floating point. */
export function parseDecimalPrice(text: string): { price: bigint; expo: number } {
  const m = /^(0|[1-9][0-9]*)(?:\.([0-9]{1,18}))?$/.exec(text.trim());
  if (!m) throw new Error(`${JSON.stringify(text)} is not a positive decimal price`);
  const frac = m[2] ?? '';
  const price = BigInt(`${m[1]}${frac}`);
  if (price <= 0n) throw new Error(`${text} is not positive`);
  return { price, expo: -frac.length };
}

/** Rescales a price to a common exponent (only ever adds digits: exact). */
export function toExpo(p: { price: bigint; expo: number }, expo: number): bigint {
  if (expo > p.expo) throw new RangeError('rescaling would lose precision');
  return p.price * 10n ** BigInt(p.expo - expo);
}
