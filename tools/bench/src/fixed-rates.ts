/** Half the saturating rates that issue 12 measured when it was written (its aims' "half the saturating rate"). */
export const DEFAULT_FIXED_RATES = 'PreviewQuote=1475,GetQuote (stored)=430';

/** `label=rate,label=rate` (labels as printed) into a rate per operation; an unknown label or a bad rate throws. */
export function fixedRates(spec: string, targets: readonly (readonly [string, unknown])[]): Map<string, number> {
  const labels = new Set(targets.map(([label]) => label));
  const rates = new Map<string, number>();
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.lastIndexOf('=');
    const label = part.slice(0, eq).trim();
    const rate = Number(part.slice(eq + 1));
    if (eq < 0 || !labels.has(label))
      throw new Error(`BENCH_FIXED_RATES: unknown operation in "${part}" (one of: ${[...labels].join(', ')})`);
    if (!Number.isInteger(rate) || rate < 1) throw new Error(`BENCH_FIXED_RATES: "${part}" needs a whole number of requests per second`);
    rates.set(label, rate);
  }
  return rates;
}
