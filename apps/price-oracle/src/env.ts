import { BaseEnv, envSection, loadEnvOrExit, millis, parsedText, port } from '@xchain/service-kit';
import { z } from 'zod';
import { parseChainlinkFeeds } from './sources/chainlink-feeds';
import { SOURCE_NAMES } from './sources/source';

/** Intervals that may be long: a test stack polls once an hour so its numbers stay put. */
const interval = (fallback: number) => z.coerce.number().int().min(1).max(86_400_000).default(fallback);

const sourceList = z
  .string()
  .default('file')
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(z.enum(SOURCE_NAMES))
      .min(1)
      .refine((names) => new Set(names).size === names.length, 'a source is listed twice'),
  );

const chainlinkFeeds = parsedText(parseChainlinkFeeds);

/** The port of the health probes and metrics. */
const HttpSection = envSection('HTTP', {
  PRICE_ORACLE_PORT: port(8083),
});

/** Which sources are asked, how often, and when a value or a source is too old. */
const PricesSection = envSection('Prices', {
  /** Sources in priority order: for each price, the first with a fresh value wins. */
  PRICE_SOURCES: sourceList,
  PRICE_POLL_MS: interval(1000),
  /**
   * A value older than this is not fresh: the next source is tried instead. Same variable and
   * default as the quote-engine's staleness limit, since a value it would refuse is useless.
   */
  PRICE_MAX_AGE_SECS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** A source with no fresh value for this long (and at least two polls) is unhealthy. */
  PRICE_SOURCE_MAX_SILENCE_MS: interval(15_000),
});

/** The list of feeds to price, asked of the quote-engine over NATS. */
const FeedsSection = envSection('Feeds', {
  /** Deadline of the ListPriceFeeds call to the quote-engine. */
  NATS_REQUEST_TIMEOUT_MS: millis(2000),
  /** How often the list of feeds to price is fetched again (new listings appear within this). */
  PRICE_FEEDS_REFRESH_MS: interval(300_000),
});

/** The `file` source: prices from a file, moved by a random walk (the local stack and the tests). */
const FileSection = envSection('File source', {
  /** Relative paths resolve from the repository root (else the working directory). */
  PRICES_FILE: z.string().min(1).default('config/prices.json'),
  /** Seed of the file source's random walk, for reproducible runs; random when unset. */
  PRICE_WALK_SEED: z.coerce.number().int().min(0).max(0xffff_ffff).optional(),
});

/** The `pyth` source: Pyth's Hermes API. */
const PythSection = envSection('Pyth source', {
  PYTH_HERMES_URL: z.url().default('https://hermes.pyth.network'),
  /** Sent as `Authorization: Bearer …`; the public Hermes requires one since 2026-08. */
  PYTH_API_KEY: z.string().min(1).optional(),
  PYTH_TIMEOUT_MS: millis(2000),
});

/** The `chainlink` source: Chainlink aggregators read over EVM JSON-RPC. */
const ChainlinkSection = envSection('Chainlink source', {
  CHAINLINK_RPC_URL: z.url().optional(),
  /** `price_id=0xaggregator,…`, e.g. `ethereum=0x5f4e…,usd-coin=0x8fff…`. */
  CHAINLINK_FEEDS: chainlinkFeeds,
  CHAINLINK_TIMEOUT_MS: millis(2000),
});

export const PriceOracleEnv = BaseEnv.extend({
  ...HttpSection.shape,
  ...PricesSection.shape,
  ...FeedsSection.shape,
  ...FileSection.shape,
  ...PythSection.shape,
  ...ChainlinkSection.shape,
}).superRefine((env, ctx) => {
  if (!env.PRICE_SOURCES.includes('chainlink')) return;
  if (!env.CHAINLINK_RPC_URL)
    ctx.addIssue({ code: 'custom', path: ['CHAINLINK_RPC_URL'], message: 'required when PRICE_SOURCES has chainlink' });
  if (env.CHAINLINK_FEEDS.size === 0)
    ctx.addIssue({ code: 'custom', path: ['CHAINLINK_FEEDS'], message: 'required when PRICE_SOURCES has chainlink' });
});
export type PriceOracleEnv = z.output<typeof PriceOracleEnv>;

export const loadOracleEnv = (): PriceOracleEnv => loadEnvOrExit('price-oracle', PriceOracleEnv);
