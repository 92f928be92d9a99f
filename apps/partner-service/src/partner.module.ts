import { type DynamicModule, Module } from '@nestjs/common';
import { httpSolanaChain } from '@xchain/chain-watch';
import { HealthController, serviceProviders, provideValue } from '@xchain/service-kit';
import { AccountsHandlers } from './accounts/accounts.handlers';
import { AccountsRepository } from './accounts/accounts.repository';
import { AccountsService } from './accounts/accounts.service';
import { KeysRepository } from './accounts/keys.repository';
import { ChainCursorsRepository } from './chain/chain-cursors.repository';
import { ChainWatchers, EVM_CHAINS, WATCH_OPTIONS } from './chain-watchers';
import { rpcEvmChain } from './chain/evm-chain';
import { PARTNERS_CONFIG, loadPartnersConfig } from './config';
import { dbProviders } from './db.providers';
import type { PartnerServiceEnv } from './env';
import { FundingDepositsService } from './funding/funding-deposits.service';
import { FundingEntriesService } from './funding/funding-entries.service';
import { FundingHandlers } from './funding/funding.handlers';
import { FundingRepository } from './funding/funding.repository';
import { FundingService } from './funding/funding.service';
import { LedgerHandlers } from './ledger/ledger.handlers';
import { LedgerRepository } from './ledger/ledger.repository';
import { LedgerService } from './ledger/ledger.service';
import { PartnerMetrics } from './metrics/partner-metrics';
import { FulfilledOrdersConsumer } from './referrals/fulfilled-orders.consumer';
import { ReferralsHandlers } from './referrals/referrals.handlers';
import { ReferralsRepository } from './referrals/referrals.repository';
import { ReferralsService } from './referrals/referrals.service';
import { REGISTRY_CACHE_MS, RegistryClient } from './registry-client';
import { SOLANA_REDEMPTION_CHAIN, SOLANA_REDEMPTION_WATCH, SolanaRedemptionsWatcher } from './vouchers/solana-redemptions-watcher';
import { SolanaRpc } from './vouchers/solana-rpc';
import { VouchersHandlers } from './vouchers/vouchers.handlers';
import { VouchersRepository } from './vouchers/vouchers.repository';
import { VOUCHER_SIGNER_KEY, VouchersService } from './vouchers/vouchers.service';
import { OrderUpdatesConsumer } from './webhooks/order-updates.consumer';
import { WEBHOOK_OPTIONS, type WebhookOptions } from './webhooks/webhook-options';
import { WebhookWorker } from './webhooks/webhook-worker';
import { WebhooksHandlers } from './webhooks/webhooks.handlers';
import { WebhooksRepository } from './webhooks/webhooks.repository';
import { WebhooksService } from './webhooks/webhooks.service';

/** Partners, sessions, API keys, the sponsorship ledger, referral accruals, vouchers and webhooks. */
@Module({})
export class PartnerModule {
  static forEnv(env: PartnerServiceEnv): DynamicModule {
    return {
      module: PartnerModule,
      controllers: [
        HealthController,
        AccountsHandlers,
        FundingHandlers,
        VouchersHandlers,
        ReferralsHandlers,
        LedgerHandlers,
        WebhooksHandlers,
      ],
      providers: [
        ...serviceProviders('partner-service', env),
        ...dbProviders(env.DATABASE_URL, env.DATABASE_POOL_SIZE),
        { provide: PARTNERS_CONFIG, useFactory: () => loadPartnersConfig(env.PARTNERS_CONFIG_FILE) },
        provideValue(REGISTRY_CACHE_MS, env.REGISTRY_CACHE_MS),
        provideValue(VOUCHER_SIGNER_KEY, env.VOUCHER_SIGNER_KEY as `0x${string}`),
        provideValue(WEBHOOK_OPTIONS, webhookOptionsOf(env)),
        { provide: SolanaRpc, useFactory: () => new SolanaRpc(env.SOLANA_RPC_URL, env.SOLANA_RPC_TIMEOUT_MS) },
        {
          provide: SOLANA_REDEMPTION_CHAIN,
          useFactory: () => (env.SOLANA_RPC_URL ? httpSolanaChain(env.SOLANA_RPC_URL, env.SOLANA_RPC_TIMEOUT_MS) : null),
        },
        {
          provide: SOLANA_REDEMPTION_WATCH,
          useValue: {
            pollMs: env.SOLANA_WATCH_POLL_MS,
            ...(env.SOLANA_WATCH_START_SLOT !== undefined ? { startSlot: env.SOLANA_WATCH_START_SLOT } : {}),
          },
        },
        {
          provide: EVM_CHAINS,
          useFactory: () => new Map([...env.EVM_RPC_URLS].map(([chain, url]) => [chain, rpcEvmChain(url, env.EVM_RPC_TIMEOUT_MS)])),
        },
        {
          provide: WATCH_OPTIONS,
          useValue: {
            confirmations: env.CHAIN_WATCH_CONFIRMATIONS,
            pollMs: env.CHAIN_WATCH_POLL_MS,
            maxBlockRange: env.CHAIN_WATCH_MAX_BLOCK_RANGE,
            ...(env.CHAIN_WATCH_START_BLOCK !== undefined ? { startBlock: env.CHAIN_WATCH_START_BLOCK } : {}),
          },
        },
        AccountsRepository,
        KeysRepository,
        LedgerRepository,
        FundingRepository,
        ReferralsRepository,
        VouchersRepository,
        WebhooksRepository,
        ChainCursorsRepository,
        RegistryClient,
        AccountsService,
        LedgerService,
        FundingService,
        FundingDepositsService,
        ChainWatchers,
        SolanaRedemptionsWatcher,
        ReferralsService,
        VouchersService,
        FulfilledOrdersConsumer,
        FundingEntriesService,
        WebhooksService,
        WebhookWorker,
        OrderUpdatesConsumer,
        PartnerMetrics,
      ],
    };
  }
}

/** The webhook settings of the environment. */
export function webhookOptionsOf(env: PartnerServiceEnv): WebhookOptions {
  return {
    allowHttpLocalhost: env.WEBHOOK_ALLOW_HTTP_LOCALHOST,
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    retry: { baseMs: env.WEBHOOK_BACKOFF_BASE_MS, maxMs: env.WEBHOOK_BACKOFF_MAX_MS, windowMs: env.WEBHOOK_RETRY_WINDOW_SECS * 1000 },
    redisUrl: env.REDIS_URL,
    queuePrefix: env.WEBHOOK_QUEUE_PREFIX,
    concurrency: env.WEBHOOK_CONCURRENCY,
    sweepMs: env.WEBHOOK_SWEEP_MS,
    secretKeys: { current: env.WEBHOOK_SECRET_KEY, old: env.WEBHOOK_SECRET_KEYS_OLD },
  };
}
