import type { Provider } from '@nestjs/common';
import { OraclePoolPricer } from '@xchain/pricing-core';
import { LOGGER } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { QUOTING_CONFIG } from '../config.tokens';
import type { QuoteEngineEnv } from '../env';
import { RegistryCache } from '../registry/registry-cache';
import { ZeroExClient } from '../swap/zero-ex.client';
import { RpcTokenPermitReader, TOKEN_PERMIT_READER, rpcClients } from './permit-reader';
import { RANDOM_WORD, cryptoRandomWord } from './quote-random';
import { QuotePurge, postgresQuotePurge } from './quote-purge';
import { QuoteWriter, postgresQuoteWriter } from './quote-writer';
import { loadQuotingConfig, poolModelOf, type QuotingConfig } from './quoting-config';
import { SVM_BLOCKHASH, SolanaBlockhashes } from './svm-blockhash';
import { SWAP_PRICING, SwapPricing } from './swap-pricing';

/** Quoting: its settings, the stored-quote writer and purge, and what a quote reads (permits, blockhashes, swap prices). */
export const quotingProviders = (env: QuoteEngineEnv): Provider[] => [
  { provide: QUOTING_CONFIG, useFactory: () => loadQuotingConfig(env.QUOTING_CONFIG_FILE) },
  { provide: RANDOM_WORD, useValue: cryptoRandomWord },
  // QUOTE_WRITE_CONNECTIONS statements in flight at most (2 by default). Fewer statements carry
  // more rows each, and PostgreSQL's cost per row falls with the batch. Measured with
  // `BENCH_OP=quote npm run bench:transport` (BENCH_BEFORE_ENV / BENCH_AFTER_ENV), 3 rounds, GetQuote
  // at 32 in flight as a share of the ceiling: 4 → 2 gave 28.5 → 35.7 %, 2 → 1 gave 34.9 → 36.4 %,
  // 4 → 8 nothing. Two rather than one: a statement that stalls does not hold up every quote behind
  // it. The second connection takes them only after QUOTE_WRITE_OVERFLOW_MS (10 by default): until
  // then they go together in the next statement, as with one connection. Measured the same way,
  // 5 rounds, overflow at once → after 10 ms: 34.3 → 35.4 % (never lower in a round), CPU per
  // quote of the whole machine 575 → 533 µs and of PostgreSQL 76 → 62 µs, open-loop p99 at
  // 1,514/s 38.9 → 29.1 ms.
  // QUOTE_WRITE_GATHER (on by default): an idle writer sent the first quote of a burst alone, and
  // the rest waited for that one-row INSERT; at 32 in flight half the statements carried one row.
  // Waiting out the event-loop turn first: statements 398 → 298 per second, rows per statement
  // 9.6 → 13.7 (median 1 → 13), and in 5 rounds of the A/B above (load generator raw-http.ts)
  // GetQuote 2,297 → 2,617 req/s, 28.3 → 30.7 % of the ceiling, PostgreSQL 88 → 79 µs per quote,
  // open-loop p99 at 991/s 43.8 → 36.4 ms.
  {
    provide: QuoteWriter,
    inject: [LOGGER],
    useFactory: (log: Logger) => postgresQuoteWriter(env.DATABASE_URL, { maxInFlight: env.QUOTE_WRITE_CONNECTIONS, maxBatch: 500, overflowAfterMs: env.QUOTE_WRITE_OVERFLOW_MS, gatherTurn: env.QUOTE_WRITE_GATHER, statementTimeoutMs: env.QUOTE_WRITE_STATEMENT_TIMEOUT_MS }, log),
  },
  {
    provide: QuotePurge,
    inject: [LOGGER],
    useFactory: (log: Logger) =>
      postgresQuotePurge(
        env.DATABASE_URL,
        { intervalMs: env.QUOTE_PURGE_INTERVAL_MS, batch: env.QUOTE_PURGE_BATCH, statementTimeoutMs: env.QUOTE_PURGE_STATEMENT_TIMEOUT_MS, graceSecs: env.QUOTE_GRACE_SECS },
        log,
      ),
  },
  { provide: TOKEN_PERMIT_READER, useFactory: () => new RpcTokenPermitReader(rpcClients(env.EVM_RPC_URLS, env.QUOTE_PERMIT_READ_TIMEOUT_MS)) },
  {
    provide: SVM_BLOCKHASH,
    inject: [LOGGER],
    useFactory: (log: Logger) =>
      new SolanaBlockhashes({ ...(env.SOLANA_RPC_URL ? { url: env.SOLANA_RPC_URL } : {}), timeoutMs: env.SOLANA_RPC_TIMEOUT_MS, cacheMs: env.SOLANA_BLOCKHASH_CACHE_MS, staleMs: 5 * env.SOLANA_BLOCKHASH_CACHE_MS }, log),
  },
  {
    provide: SWAP_PRICING,
    inject: [QUOTING_CONFIG, RegistryCache],
    useFactory: (config: QuotingConfig, registry: RegistryCache) => {
      const zeroEx = env.SWAP_PRICER === '0x'
        ? new ZeroExClient({ baseUrl: env.ZEROEX_API_URL, timeoutMs: env.ZEROEX_TIMEOUT_MS, ...(env.ZEROEX_API_KEY ? { apiKey: env.ZEROEX_API_KEY } : {}) })
        : undefined;
      return new SwapPricing(new OraclePoolPricer(poolModelOf(config)), zeroEx, (chain) => {
        const c = registry.chain(chain);
        return c ? { id: c.chainId, vm: c.vm } : undefined;
      });
    },
  },
];
