/** How long the local filler waits after a deposit before it fills: a random whole ms in [minMs, maxMs]. */
export interface FillDelay {
  minMs: number;
  maxMs: number;
}

/** A few seconds: long enough to watch an order sit `deposited`, short enough not to bore. */
export const DEFAULT_FILL_DELAY = '2000-6000';

/**
 * `DEVNET_FILL_DELAY_MS`: `min-max` in milliseconds (`3000` alone means exactly that), or `off`
 * for no local filler at all. Returns undefined for `off`; throws, naming the variable, otherwise.
 */
export function parseFillDelay(raw: string | undefined, variable = 'DEVNET_FILL_DELAY_MS'): FillDelay | undefined {
  const text = (raw ?? DEFAULT_FILL_DELAY).trim();
  if (text.toLowerCase() === 'off') return undefined;
  const match = /^(\d{1,7})(?:\s*-\s*(\d{1,7}))?$/.exec(text);
  if (!match) throw new Error(`${variable}=${raw} is neither "off" nor a delay range "min-max" in milliseconds (e.g. ${DEFAULT_FILL_DELAY})`);
  const minMs = Number(match[1]);
  const maxMs = match[2] === undefined ? minMs : Number(match[2]);
  if (maxMs < minMs) throw new Error(`${variable}=${raw}: the maximum is below the minimum`);
  return { minMs, maxMs };
}

/** A delay in the range, every whole millisecond equally likely; `random` returns [0, 1) like Math.random. */
export function pickFillDelay(delay: FillDelay, random: () => number = Math.random): number {
  return delay.minMs + Math.floor(random() * (delay.maxMs - delay.minMs + 1));
}

export function formatFillDelay(delay: FillDelay): string {
  return delay.minMs === delay.maxMs ? `${delay.minMs} ms` : `${delay.minMs}-${delay.maxMs} ms`;
}
