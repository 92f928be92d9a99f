/**
 * Amounts as the API sends them (decimal strings of base units) turned into token units for
 * people, with bigint and string arithmetic only: a float would round a large amount.
 */

const DIGITS = /^\d+$/;

/** `1234567` with 6 decimals → `1.234567`; whole part grouped by thousands, trailing zeros dropped. */
export function formatUnits(amount: string, decimals: number): string {
  if (!DIGITS.test(amount) || !Number.isInteger(decimals) || decimals < 0) return amount;
  const value = BigInt(amount);
  if (decimals === 0) return group(value.toString());
  const base = 10n ** BigInt(decimals);
  const fraction = (value % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  const whole = group((value / base).toString());
  return fraction ? `${whole}.${fraction}` : whole;
}

/** USD micros (`1234567` = $1.234567) rounded half up to cents: `$1.23`. A negative value keeps its sign. */
export function formatUsdMicros(micros: string): string {
  const m = /^(-?)(\d+)$/.exec(micros);
  if (!m) return micros;
  const cents = (BigInt(m[2]!) + 5_000n) / 10_000n;
  const whole = group((cents / 100n).toString());
  return `${m[1] && cents > 0n ? '−' : ''}$${whole}.${(cents % 100n).toString().padStart(2, '0')}`;
}

/** Seconds as people read them: `45 s`, `3 min 5 s`, `2 h 4 min`. */
export function formatDuration(totalSecs: number): string {
  if (!Number.isFinite(totalSecs) || totalSecs < 0) return '—';
  const s = Math.round(totalSecs);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return s % 60 ? `${min} min ${s % 60} s` : `${min} min`;
  const h = Math.floor(min / 60);
  return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
}

function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
