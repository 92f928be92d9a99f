/** `EVM_RPC_URLS` text (`ethereum=http://…,base=http://…`) from chain → URL, in the map's order. */
export function formatRpcUrls(urls: ReadonlyMap<string, string> | Record<string, string>): string {
  const entries = urls instanceof Map ? [...urls.entries()] : Object.entries(urls);
  return entries.map(([chain, url]) => `${chain}=${url}`).join(',');
}
