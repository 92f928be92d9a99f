import './instrument';
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { RpcClient, type NatsConnection } from '@xchain/messaging';
import { HealthController, NATS, coreProviders, startService } from '@xchain/service-kit';
import { AccountsService } from './accounts/accounts.service';
import { PARTNERS_CONFIG, loadPartnersConfig } from './config';
import { dbProviders } from './db.providers';
import { env } from './env';
import { rpcFundingChain } from './funding/funding-chain';
import { FundingDepositsService } from './funding/funding-deposits.service';
import { FUNDING_CHAIN, FUNDING_WATCH, FundingWatcher } from './funding/funding-watcher';
import { FundingService } from './funding/funding.service';
import { PartnerHandlers } from './handlers';
import { LedgerService } from './ledger/ledger.service';
import { FulfilledOrdersConsumer } from './referrals/fulfilled-orders.consumer';
import { ReferralsService } from './referrals/referrals.service';
import { REGISTRY_CACHE_MS, RegistryClient } from './registry-client';
import { SolanaRpc } from './vouchers/solana-rpc';
import { VOUCHER_SIGNER_KEY, VouchersService } from './vouchers/vouchers.service';

/** Partners, sessions, API keys, the sponsorship ledger, referral accruals and vouchers. */
@Module({
  controllers: [HealthController],
  providers: [
    ...coreProviders({ service: 'partner-service', natsUrl: env.NATS_URL, natsConnectTimeoutMs: env.NATS_CONNECT_TIMEOUT_MS }),
    ...dbProviders,
    { provide: PARTNERS_CONFIG, useFactory: () => loadPartnersConfig(env.PARTNERS_CONFIG_FILE) },
    { provide: RpcClient, inject: [NATS], useFactory: (nc: NatsConnection) => new RpcClient(nc, env.NATS_REQUEST_TIMEOUT_MS) },
    { provide: REGISTRY_CACHE_MS, useValue: env.REGISTRY_CACHE_MS },
    { provide: VOUCHER_SIGNER_KEY, useValue: env.VOUCHER_SIGNER_KEY },
    { provide: SolanaRpc, useFactory: () => new SolanaRpc(env.SOLANA_RPC_URL, env.SOLANA_RPC_TIMEOUT_MS) },
    { provide: FUNDING_CHAIN, useFactory: () => (env.FUNDING_RPC_URL ? rpcFundingChain(env.FUNDING_RPC_URL, env.FUNDING_RPC_TIMEOUT_MS) : undefined) },
    {
      provide: FUNDING_WATCH,
      useValue: {
        confirmations: env.FUNDING_CONFIRMATIONS,
        pollMs: env.FUNDING_POLL_MS,
        maxBlockRange: env.FUNDING_MAX_BLOCK_RANGE,
        ...(env.FUNDING_START_BLOCK !== undefined ? { startBlock: env.FUNDING_START_BLOCK } : {}),
      },
    },
    RegistryClient,
    AccountsService,
    LedgerService,
    FundingService,
    FundingDepositsService,
    FundingWatcher,
    ReferralsService,
    VouchersService,
    FulfilledOrdersConsumer,
    PartnerHandlers,
  ],
})
class PartnerServiceModule {}

void startService({ service: 'partner-service', module: PartnerServiceModule, host: env.HOST, port: env.PARTNER_SERVICE_PORT });
