import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import type { Address } from 'viem';

/** What the benches on local chains share: the registry's USDC, the dev tokens' open mint, latency figures. */

/** The registry's USDC on a chain (config/registry.json). */
export function usdcOf(chain: string): Address {
  const registry = JSON.parse(readFileSync(join(ROOT, 'config/registry.json'), 'utf8')) as {
    tokens: { chain: string; symbol: string; address: Address }[];
  };
  const t = registry.tokens.find((x) => x.chain === chain && x.symbol === 'USDC');
  if (!t) throw new Error(`no ${chain} USDC in the registry`);
  return t.address;
}

/** The dev tokens' open `mint(to, amount)`. */
export const MINT_ABI = [
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [],
  },
] as const;

/** The `p`-quantile of some milliseconds (nearest rank, no interpolation). */
export function pct(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN;
}

/** `p50 … ms  p99 … ms  max … ms  (n)`, aligned for a column of such lines. */
export const fmt = (xs: readonly number[]) =>
  `p50 ${pct(xs, 0.5).toFixed(0).padStart(5)} ms  p99 ${pct(xs, 0.99).toFixed(0).padStart(5)} ms  max ${Math.max(...xs)
    .toFixed(0)
    .padStart(5)} ms  (${xs.length})`;
