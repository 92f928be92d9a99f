import type { Provider } from '@nestjs/common';
import { httpSolanaChain } from '@xchain/chain-watch';
import type { NatsConnection } from '@xchain/messaging';
import { LOGGER, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import type { QuoteEngineEnv } from '../env';
import { ReplacedChainGuard } from './chain-replaced';
import { ChainCursorRepository, chainStoreProviders } from './chain-cursor.repository';
import { rpcDepositChain } from './deposit-chain';
import { DEPOSIT_CHAINS, DEPOSIT_WATCH_CONFIG, DepositWatchers, type DepositWatchConfig, REPLACED_CHAINS } from './deposit-watchers';
import { ORDER_EVENT_PUBLISHER, jetStreamOrderEventPublisher } from './order-event-publisher';
import { storedQuoteLookup } from './solana-quotes';
import { QuoteRepository } from '../quoting/quote.repository';
import { SOLANA_CHAIN, SOLANA_QUOTES, SOLANA_WATCH_CONFIG, SolanaWatcher, type SolanaWatchConfig } from './solana-watcher';

/** The deposit watchers and what they stand on (RPCs, cursors in `chain_cursors`, JetStream). */
export const chainProviders = (env: QuoteEngineEnv): Provider[] => [
  {
    provide: DEPOSIT_CHAINS,
    useFactory: () => new Map([...env.EVM_RPC_URLS].map(([chain, url]) => [chain, rpcDepositChain(url, env.EVM_RPC_TIMEOUT_MS)])),
  },
  {
    provide: DEPOSIT_WATCH_CONFIG,
    useValue: {
      watch: {
        confirmations: env.CHAIN_WATCH_CONFIRMATIONS,
        pollMs: env.CHAIN_WATCH_POLL_MS,
        maxBlockRange: env.CHAIN_WATCH_MAX_BLOCK_RANGE,
        ...(env.CHAIN_WATCH_START_BLOCK !== undefined ? { startBlock: env.CHAIN_WATCH_START_BLOCK } : {}),
      },
      confirmations: env.CHAIN_CONFIRMATIONS,
    } satisfies DepositWatchConfig,
  },
  ...chainStoreProviders,
  {
    provide: REPLACED_CHAINS,
    inject: [ChainCursorRepository, LOGGER],
    useFactory: (cursors: ChainCursorRepository, log: Logger) => new ReplacedChainGuard(cursors, log),
  },
  {
    provide: ORDER_EVENT_PUBLISHER,
    inject: [NATS],
    useFactory: (nc: NatsConnection) => jetStreamOrderEventPublisher(nc, env.NATS_REQUEST_TIMEOUT_MS),
  },
  DepositWatchers,
  // Solana: deposits, fills and refunds from confirmed transactions (off without SOLANA_RPC_URL).
  {
    provide: SOLANA_CHAIN,
    useFactory: () => (env.SOLANA_RPC_URL ? httpSolanaChain(env.SOLANA_RPC_URL, env.SOLANA_WATCH_TIMEOUT_MS) : null),
  },
  {
    provide: SOLANA_WATCH_CONFIG,
    useValue: {
      chainName: 'solana',
      fillers: env.SOLANA_FILLER_ACCOUNTS,
      pollMs: env.SOLANA_WATCH_POLL_MS,
      ...(env.SOLANA_WATCH_START_SLOT !== undefined ? { startSlot: env.SOLANA_WATCH_START_SLOT } : {}),
    } satisfies SolanaWatchConfig,
  },
  { provide: SOLANA_QUOTES, inject: [QuoteRepository], useFactory: (quotes: QuoteRepository) => storedQuoteLookup(quotes) },
  SolanaWatcher,
];
