import { parseChainMap } from './chain-map';

/** Most blocks a chain may be asked to wait: beyond this a typo, not a policy. */
const MAX_CONFIRMATIONS = 1000;

/**
 * `CHAIN_CONFIRMATIONS`: per-chain confirmation depths, `chain=N` comma-separated
 * (`ethereum=12,base=5`), each overriding the default depth for that chain only. Chains finalise
 * at very different speeds, so one depth for all is either slow on fast chains or unsafe on others.
 */
export function parseChainConfirmations(value: string): Map<string, number> {
  return parseChainMap(
    value,
    (depth, chain) => {
      if (!/^(0|[1-9][0-9]*)$/.test(depth) || Number(depth) > MAX_CONFIRMATIONS) {
        throw new Error(`the confirmations of ${chain} must be a whole number from 0 to ${MAX_CONFIRMATIONS}`);
      }
      return Number(depth);
    },
    'N',
  );
}

/** The depth a chain's logs wait for: its override, else the default. */
export function confirmationsFor(chain: string, overrides: ReadonlyMap<string, number>, fallback: number): number {
  return overrides.get(chain) ?? fallback;
}
