import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type ChainLog, LogWatcher, type LogSource, type WatchOptions } from '@xchain/chain-watch';
import { HealthRegistry, LOGGER, token } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { type Address, isAddress } from 'viem';
import { PARTNERS_CONFIG, type PartnersConfig } from './config';
import { FundingDepositsService } from './funding/funding-deposits.service';
import { RegistryClient } from './registry-client';
import { VouchersService } from './vouchers/vouchers.service';
import { ChainCursorsRepository } from './chain/chain-cursors.repository';
import type { EvmChain } from './chain/evm-chain';

export const EVM_CHAINS = token<Map<string, EvmChain>>('EVM_CHAINS');
export const WATCH_OPTIONS = token<WatchOptions>('WATCH_OPTIONS');

/**
 * What the partner-service reads on chain, for each chain it has an RPC for (`EVM_RPC_URLS`): the
 * funding router's `Funded` events (credits) and each EVM voucher router's `VoucherRedeemed`
 * events (marks vouchers redeemed). `/readyz` reports them under `chain_watchers` and never fails
 * on them: a lagging chain must not take the partner API out of service.
 */
@Injectable()
export class ChainWatchers implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly watchers: Pick<LogWatcher<ChainLog>, 'name' | 'chainName' | 'confirmations' | 'progress' | 'detail' | 'start' | 'stop'>[] = [];

  constructor(
    @Inject(EVM_CHAINS) chains: Map<string, EvmChain>,
    @Inject(WATCH_OPTIONS) opts: WatchOptions,
    @Inject(PARTNERS_CONFIG) config: PartnersConfig,
    @Inject(ChainCursorsRepository) cursors: ChainCursorsRepository,
    @Inject(RegistryClient) registry: RegistryClient,
    @Inject(FundingDepositsService) deposits: FundingDepositsService,
    @Inject(VouchersService) vouchers: VouchersService,
    @Inject(HealthRegistry) health: HealthRegistry,
    @Inject(LOGGER) log: Logger,
  ) {
    const deps = { cursors, expectedChainId: async (name: string) => (await registry.chain(name))?.chain_id, log };
    const add = <L extends ChainLog>(source: LogSource<L>) => this.watchers.push(new LogWatcher(source, opts, deps));
    const { chain: fundingChain, router_address } = config.funding;
    const funding = chains.get(fundingChain);
    if (funding) {
      const router = router_address as Address;
      add({
        name: `funding:${fundingChain}:${router.toLowerCase()}`,
        chainName: fundingChain,
        chain: funding,
        read: (from, to) => funding.fundedLogs(router, from, to),
        handle: (l) => deposits.record(fundingChain, l),
      });
    }
    for (const [chainName, routerAddress] of Object.entries(config.voucher_routers)) {
      const chain = chains.get(chainName);
      if (!chain || !isAddress(routerAddress, { strict: false })) continue; // Solana vouchers: SolanaRedemptionsWatcher (vouchers/solana-redemptions-watcher.ts)
      add({
        name: `vouchers:${chainName}:${routerAddress.toLowerCase()}`,
        chainName,
        chain,
        read: (from, to) => chain.voucherRedeemedLogs(routerAddress, from, to),
        handle: (l) => vouchers.markRedeemed(chainName, l, () => chain.blockTime(l.blockNumber)),
      });
    }
    health.register('chain_watchers', async () => ({
      ok: true,
      detail: this.watchers.length
        ? this.watchers.map((w) => `${w.name}: ${w.detail}`).join('; ')
        : 'off (EVM_RPC_URLS names no funding or voucher chain)',
    }));
  }

  onApplicationBootstrap(): void {
    for (const w of this.watchers) w.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.watchers.map((w) => w.stop()));
  }
}
