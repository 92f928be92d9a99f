import type { PriceOracleEnv } from './env';
import { resolveConfigPath } from './config-path';
import { drawsPerKey } from './random';
import { ChainlinkSource } from './sources/chainlink-source';
import { FilePriceSource, loadPricesFile } from './sources/file-source';
import { PythHermesSource } from './sources/pyth-source';
import type { PriceSource } from './sources/source';

/** The configured sources, in PRICE_SOURCES' priority order. */
export function buildSources(env: PriceOracleEnv): PriceSource[] {
  return env.PRICE_SOURCES.map((name): PriceSource => {
    switch (name) {
      case 'file':
        return new FilePriceSource(loadPricesFile(resolveConfigPath(env.PRICES_FILE)), drawsPerKey(env.PRICE_WALK_SEED));
      case 'pyth':
        return new PythHermesSource({ baseUrl: env.PYTH_HERMES_URL, apiKey: env.PYTH_API_KEY, timeoutMs: env.PYTH_TIMEOUT_MS });
      case 'chainlink':
        // The env schema refuses chainlink without an RPC URL; this only satisfies the type.
        if (!env.CHAINLINK_RPC_URL) throw new Error('CHAINLINK_RPC_URL is required for the chainlink source');
        return new ChainlinkSource({ rpcUrl: env.CHAINLINK_RPC_URL, feeds: env.CHAINLINK_FEEDS, timeoutMs: env.CHAINLINK_TIMEOUT_MS });
    }
  });
}
