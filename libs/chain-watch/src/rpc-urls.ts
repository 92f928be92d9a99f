import { parseChainMap } from './chain-map';

/** `EVM_RPC_URLS`: `chain=url` pairs, comma-separated (`base=https://…,ethereum=https://…`). */
export function parseRpcUrls(value: string): Map<string, string> {
  return parseChainMap(
    value,
    (url, chain) => {
      if (!/^https?:\/\/\S+$/.test(url)) throw new Error(`the URL of ${chain} is not an http(s) URL`);
      return url;
    },
    'url',
  );
}
