import type { Provider } from '@nestjs/common';
import { OraclePoolPricer } from '@xchain/pricing-core';
import { Clock, LOGGER } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { QUOTING_CONFIG } from '../config.tokens';
import type { QuoteEngineEnv } from '../env';
import { RegistryCache } from '../registry/registry-cache';
import { ZeroExClient } from '../swap/zero-ex.client';
import { ChainChecks, EXECUTABILITY } from './executability';
import { RpcTokenPermitReader, TOKEN_PERMIT_READER, rpcClients } from './permit-reader';
import { DESTINATION_CALLS, DestinationCalls } from './destination-calls';
import { RpcClient } from '@xchain/messaging';
import { RANDOM_WORD, cryptoRandomWord } from './quote-random';
import { QuoteDays, postgresQuoteDays } from './quote-days';
import { QuotePurge, postgresQuotePurge } from './quote-purge';
import { QuoteRepository } from './quote.repository';
import { QuoteWriter, postgresQuoteWriter } from './quote-writer';
import { loadQuotingConfig, poolModelOf, type QuotingConfig } from '../quoting-config';
import { SVM_BLOCKHASH, SolanaBlockhashes } from './svm-blockhash';
import { SWAP_PRICING, SwapPricing } from './swap-pricing';

/** Quoting: its settings, the stored-quote writer and purge, and what a quote reads (permits, blockhashes, swap prices, executability). */
export const quotingProviders = (env: QuoteEngineEnv): Provider[] => [
  { provide: QUOTING_CONFIG, useFactory: () => loadQuotingConfig(env.QUOTING_CONFIG_FILE) },
  { provide: RANDOM_WORD, useValue: cryptoRandomWord },
  // Stored quotes are written in batches: at most QUOTE_WRITE_CONNECTIONS statements in flight (a
  // stalled one does not hold up every quote), the second taking rows only after
  // QUOTE_WRITE_OVERFLOW_MS, and an idle writer first waits out the event-loop turn so a burst goes
  // in one statement (QUOTE_WRITE_GATHER). Why these defaults: docs/benchmarks.md.
  {
    provide: QuoteDays,
    inject: [LOGGER, Clock],
    useFactory: (log: Logger, clock: Clock) =>
      postgresQuoteDays(
        env.DATABASE_URL,
        { intervalMs: env.QUOTE_DAYS_INTERVAL_MS, retentionSecs: env.QUOTE_RETENTION_SECS, graceSecs: env.QUOTE_GRACE_SECS, aheadDays: 2 },
        log,
        clock,
      ),
  },
  QuoteRepository,
  {
    provide: QuoteWriter,
    inject: [LOGGER, QuoteDays],
    useFactory: (log: Logger, days: QuoteDays) =>
      postgresQuoteWriter(
        env.DATABASE_URL,
        {
          maxInFlight: env.QUOTE_WRITE_CONNECTIONS,
          maxBatch: 500,
          overflowAfterMs: env.QUOTE_WRITE_OVERFLOW_MS,
          gatherTurn: env.QUOTE_WRITE_GATHER,
          statementTimeoutMs: env.QUOTE_WRITE_STATEMENT_TIMEOUT_MS,
        },
        log,
        () => days.kick(),
      ),
  },
  {
    provide: QuotePurge,
    inject: [LOGGER],
    useFactory: (log: Logger) =>
      postgresQuotePurge(
        env.DATABASE_URL,
        {
          intervalMs: env.QUOTE_PURGE_INTERVAL_MS,
          batch: env.QUOTE_PURGE_BATCH,
          statementTimeoutMs: env.QUOTE_PURGE_STATEMENT_TIMEOUT_MS,
          graceSecs: env.QUOTE_GRACE_SECS,
        },
        log,
      ),
  },
  {
    provide: TOKEN_PERMIT_READER,
    useFactory: () => new RpcTokenPermitReader(rpcClients(env.EVM_RPC_URLS, env.QUOTE_PERMIT_READ_TIMEOUT_MS)),
  },
  {
    provide: EXECUTABILITY,
    inject: [LOGGER, Clock],
    useFactory: (log: Logger, clock: Clock) =>
      new ChainChecks(
        rpcClients(env.EVM_RPC_URLS, env.QUOTE_CHECKS_TIMEOUT_MS),
        env.SOLANA_RPC_URL,
        { timeoutMs: env.QUOTE_CHECKS_TIMEOUT_MS, cacheMs: env.QUOTE_CHECKS_CACHE_MS, depositGas: BigInt(env.QUOTE_CHECKS_DEPOSIT_GAS) },
        log,
        clock,
      ),
  },
  {
    provide: DESTINATION_CALLS,
    inject: [RpcClient],
    useFactory: (rpc: RpcClient) =>
      new DestinationCalls(rpcClients(env.EVM_RPC_URLS, env.DESTINATION_CALL_TIMEOUT_MS), rpc, {
        maxGas: env.DESTINATION_CALL_MAX_GAS,
        timeoutMs: env.DESTINATION_CALL_TIMEOUT_MS,
      }),
  },
  {
    provide: SVM_BLOCKHASH,
    inject: [LOGGER, Clock],
    useFactory: (log: Logger, clock: Clock) =>
      new SolanaBlockhashes(
        {
          ...(env.SOLANA_RPC_URL ? { url: env.SOLANA_RPC_URL } : {}),
          timeoutMs: env.SOLANA_RPC_TIMEOUT_MS,
          cacheMs: env.SOLANA_BLOCKHASH_CACHE_MS,
          staleMs: 5 * env.SOLANA_BLOCKHASH_CACHE_MS,
        },
        log,
        clock,
      ),
  },
  {
    provide: SWAP_PRICING,
    inject: [QUOTING_CONFIG, RegistryCache],
    useFactory: (config: QuotingConfig, registry: RegistryCache) => {
      const zeroEx =
        env.SWAP_PRICER === '0x'
          ? new ZeroExClient({
              baseUrl: env.ZEROEX_API_URL,
              timeoutMs: env.ZEROEX_TIMEOUT_MS,
              ...(env.ZEROEX_API_KEY ? { apiKey: env.ZEROEX_API_KEY } : {}),
            })
          : undefined;
      return new SwapPricing(new OraclePoolPricer(poolModelOf(config)), zeroEx, (chain) => {
        const c = registry.chain(chain);
        return c ? { id: c.chainId, vm: c.vm } : undefined;
      });
    },
  },
];
