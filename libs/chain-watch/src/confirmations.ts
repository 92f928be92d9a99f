/** Most blocks a chain may be asked to wait: beyond this a typo, not a policy. */
const MAX_CONFIRMATIONS = 1000;

/**
 * `CHAIN_CONFIRMATIONS`: per-chain confirmation depths, `chain=N` comma-separated
 * (`ethereum=12,base=5`), each overriding the default depth for that chain only. Chains finalise
 * at very different speeds, so one depth for all is either slow on fast chains or unsafe on others.
 */
export function parseChainConfirmations(value: string): Map<string, number> {
  const depths = new Map<string, number>();
  for (const pair of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = pair.indexOf('=');
    const chain = pair.slice(0, eq).trim();
    const depth = pair.slice(eq + 1).trim();
    if (eq < 1 || !/^[a-z][a-z0-9-]*$/.test(chain)) throw new Error(`"${pair}" is not chain=N with a lowercase chain name`);
    if (!/^(0|[1-9][0-9]*)$/.test(depth) || Number(depth) > MAX_CONFIRMATIONS) {
      throw new Error(`the confirmations of ${chain} must be a whole number from 0 to ${MAX_CONFIRMATIONS}`);
    }
    if (depths.has(chain)) throw new Error(`${chain} is named twice`);
    depths.set(chain, Number(depth));
  }
  return depths;
}

/** The depth a chain's logs wait for: its override, else the default. */
export function confirmationsFor(chain: string, overrides: ReadonlyMap<string, number>, fallback: number): number {
  return overrides.get(chain) ?? fallback;
}
