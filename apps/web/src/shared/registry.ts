import { useEffect, useState } from 'preact/hooks';
import type { XchainClient } from '@xchain/client';
import type { ChainInfo, TokenInfo } from './api';

/** The chains and tokens of the registry, to name amounts (symbol, decimals) and link transactions. */
export interface Registry {
  chain(name: string): ChainInfo | undefined;
  token(chain: string, address: string): TokenInfo | undefined;
  chains: ChainInfo[];
}

const key = (chain: string, address: string) => `${chain}:${address.startsWith('0x') ? address.toLowerCase() : address}`;

let loading: Promise<Registry> | undefined;

/** Read once per page load; a failed read is tried again by the next caller. */
export function loadRegistry(api: XchainClient): Promise<Registry> {
  loading ??= Promise.all([api.getChains(), api.listTokens()]).then(
    ([{ chains }, { tokens }]) => {
      const byChain = new Map(chains.map((c) => [c.chain, c]));
      const byToken = new Map(tokens.map((t) => [key(t.chain, t.address), t]));
      return { chains, chain: (n) => byChain.get(n), token: (c, a) => byToken.get(key(c, a)) };
    },
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}

/** The registry once loaded (undefined until then, or when it could not be read: amounts then show in base units). */
export function useRegistry(api: XchainClient): Registry | undefined {
  const [registry, setRegistry] = useState<Registry>();
  useEffect(() => {
    let live = true;
    loadRegistry(api).then(
      (r) => live && setRegistry(r),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api]);
  return registry;
}

/** The block explorer's page of a transaction, from the chain's `explorer_tx_url` template. */
export function txUrl(registry: Registry | undefined, chain: string, tx: string): string | undefined {
  const template = registry?.chain(chain)?.explorer_tx_url;
  if (!template || !/^https?:\/\//.test(template)) return undefined;
  return template.replace('{tx}', encodeURIComponent(tx));
}
