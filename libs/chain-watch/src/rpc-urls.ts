/** `EVM_RPC_URLS`: `chain=url` pairs, comma-separated (`base=https://…,ethereum=https://…`). */
export function parseRpcUrls(value: string): Map<string, string> {
  const urls = new Map<string, string>();
  for (const pair of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = pair.indexOf('=');
    const chain = pair.slice(0, eq).trim();
    const url = pair.slice(eq + 1).trim();
    if (eq < 1 || !/^[a-z][a-z0-9-]*$/.test(chain)) throw new Error(`"${pair}" is not chain=url with a lowercase chain name`);
    if (!/^https?:\/\/\S+$/.test(url)) throw new Error(`the URL of ${chain} is not an http(s) URL`);
    if (urls.has(chain)) throw new Error(`${chain} is named twice`);
    urls.set(chain, url);
  }
  return urls;
}
