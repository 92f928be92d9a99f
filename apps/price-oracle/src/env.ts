import { BaseEnv, loadEnvOrExit, millis, port } from '@xchain/service-kit';
import { z } from 'zod';

export const PriceOracleEnv = BaseEnv.extend({
  PRICE_ORACLE_PORT: port(8083),
  /** Sources in priority order: the first with a fresh value for a price wins. */
  PRICE_SOURCES: z
    .string()
    .default('file')
    .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
    .pipe(z.array(z.enum(['file', 'pyth', 'chainlink'])).min(1)),
  PRICE_POLL_MS: millis(1000),
  /** A source with no fresh price for this long is reported unhealthy. */
  PRICE_SOURCE_MAX_SILENCE_MS: millis(15_000),
  PRICES_FILE: z.string().default('config/prices.json'),
  /** Seed of the file source's random walk (reproducible runs); random when unset. */
  PRICE_WALK_SEED: z.coerce.number().int().optional(),
  PYTH_HERMES_URL: z.string().url().default('https://hermes.pyth.network'),
  PYTH_TIMEOUT_MS: millis(2000),
  CHAINLINK_RPC_URL: z.string().url().optional(),
  CHAINLINK_FEEDS: z.string().optional(),
  CHAINLINK_TIMEOUT_MS: millis(2000),
  NATS_REQUEST_TIMEOUT_MS: millis(2000),
  FEEDS_REFRESH_MS: millis(300_000),
});
export type PriceOracleEnv = z.output<typeof PriceOracleEnv>;

export const loadOracleEnv = () => loadEnvOrExit('price-oracle', PriceOracleEnv);
