import type { Tier } from './types';

/**
 * Default slippage when the request names none, by the riskier of the two tokens:
 * stable↔stable 10 bps, with a major (and no long-tail) 50 bps, with any long-tail 100 bps.
 */
export function defaultSlippageBps(a: Tier, b: Tier): number {
  if (a === 'long_tail' || b === 'long_tail') return 100;
  if (a === 'major' || b === 'major') return 50;
  return 10;
}
