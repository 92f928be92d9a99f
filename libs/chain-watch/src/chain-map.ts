/**
 * A per-chain setting: `chain=value` pairs, comma-separated (`ethereum=12,base=5`). Each value is
 * read by `parse`; what it throws is reported with the chain's name. A chain named twice, or a
 * name that is not a lowercase registry name, is refused.
 */
export function parseChainMap<T>(text: string, parse: (value: string, chain: string) => T, what = 'value'): Map<string, T> {
  const out = new Map<string, T>();
  for (const pair of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = pair.indexOf('=');
    const chain = pair.slice(0, eq).trim();
    if (eq < 1 || !/^[a-z][a-z0-9-]*$/.test(chain)) throw new Error(`"${pair}" is not chain=${what} with a lowercase chain name`);
    if (out.has(chain)) throw new Error(`${chain} is named twice`);
    out.set(chain, parse(pair.slice(eq + 1).trim(), chain));
  }
  return out;
}
