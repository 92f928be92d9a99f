import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type CursorStore, LogWatcher, type ReplacedChainCheck, type WatchOptions, confirmationsFor } from '@xchain/chain-watch';
import { HealthRegistry, LOGGER, token } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { type Address, getAddress, isAddress } from 'viem';
import { RegistryCache } from '../registry/registry-cache';
import { CHAIN_STEPS, type ChainStepStore } from './chain-steps.repository';
import { ORDER_PARTIES, type OrderParties } from './order-parties.repository';
import type { DepositChain, RouterLog } from './deposit-chain';
import { depositSource } from './deposit-source';
import { ORDER_EVENT_PUBLISHER, type OrderEventPublisher } from './order-event-publisher';

export const DEPOSIT_CHAINS = token<ReadonlyMap<string, DepositChain>>('DEPOSIT_CHAINS');
export const DEPOSIT_WATCH_CONFIG = token<DepositWatchConfig>('DEPOSIT_WATCH_CONFIG');
export const CHAIN_CURSORS = token<CursorStore>('CHAIN_CURSORS');
/** Notices a chain replaced under a watcher's position (chain-replaced.ts); optional. */
export const REPLACED_CHAINS = token<ReplacedChainCheck>('REPLACED_CHAINS');

export interface DepositWatchConfig {
  /** Polling, range and start block, shared by every chain; `confirmations` is the default depth. */
  watch: WatchOptions;
  /** Per-chain depths (`CHAIN_CONFIRMATIONS`). */
  confirmations: ReadonlyMap<string, number>;
}

/**
 * One order watcher per chain with an RPC (`EVM_RPC_URLS`), on the router the registry names
 * as that chain's `deposit_target` (deposits and refunds of orders from the chain, fills of
 * orders to it). The registry can change under a running service (a reseed,
 * a new router), so the set is re-checked every poll: a changed router gets a new watcher with
 * its own position. `/readyz` reports them under `chain_watchers` and never fails on them: a
 * lagging chain must not stop quoting.
 */
@Injectable()
export class DepositWatchers implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly running = new Map<string, { router: Address; watcher: LogWatcher<RouterLog> }>();
  private readonly idle = new Map<string, string>();
  private timer?: NodeJS.Timeout;
  private syncing?: Promise<void>;
  private stopped = false;

  constructor(
    @Inject(DEPOSIT_CHAINS) private readonly chains: ReadonlyMap<string, DepositChain>,
    @Inject(DEPOSIT_WATCH_CONFIG) private readonly config: DepositWatchConfig,
    @Inject(RegistryCache) private readonly registry: Pick<RegistryCache, 'chain'>,
    @Inject(CHAIN_CURSORS) private readonly cursors: CursorStore,
    @Inject(ORDER_EVENT_PUBLISHER) private readonly publisher: OrderEventPublisher,
    @Inject(HealthRegistry) health: Pick<HealthRegistry, 'register'>,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(CHAIN_STEPS) private readonly steps?: ChainStepStore,
    @Inject(REPLACED_CHAINS) private readonly replaced?: ReplacedChainCheck,
    @Inject(ORDER_PARTIES) private readonly parties?: OrderParties,
  ) {
    health.register('chain_watchers', async () => ({ ok: true, detail: this.detail() }));
  }

  onApplicationBootstrap(): void {
    if (this.chains.size === 0) return;
    void this.sync();
    this.timer = setInterval(() => void this.sync(), this.config.watch.pollMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.syncing;
    await Promise.all([...this.running.values()].map((r) => r.watcher.stop()));
  }

  /** Starts, keeps or replaces each chain's watcher after the registry as it is now (single flight). */
  sync(): Promise<void> {
    this.syncing ??= this.reconcile()
      .catch((err: unknown) => this.log.warn({ err: String(err) }, 'deposit watchers: sync failed'))
      .finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  /** The watchers running now (for metrics). */
  watchers(): LogWatcher<RouterLog>[] {
    return [...this.running.values()].map((r) => r.watcher);
  }

  detail(): string {
    if (this.chains.size === 0) return 'off (EVM_RPC_URLS names no chain)';
    return [...this.chains.keys()]
      .map((chain) => {
        const r = this.running.get(chain);
        return r ? `${r.watcher.name}: ${r.watcher.detail}` : `deposits:${chain}: ${this.idle.get(chain) ?? 'starting'}`;
      })
      .join('; ');
  }

  private async reconcile(): Promise<void> {
    for (const [chainName, chain] of this.chains) {
      if (this.stopped) return;
      const listed = this.registry.chain(chainName);
      const router =
        listed?.vm === 'evm' && isAddress(listed.depositTarget, { strict: false }) ? getAddress(listed.depositTarget) : undefined;
      const current = this.running.get(chainName);
      if (current && current.router === router) continue;
      if (current) {
        await current.watcher.stop();
        this.running.delete(chainName);
        this.log.info({ chain: chainName, was: current.router, now: router }, 'deposit router changed');
      }
      if (!router) {
        this.idle.set(chainName, listed ? 'not watched: no EVM deposit_target in the registry' : 'not watched: not in the registry');
        continue;
      }
      const watcher = new LogWatcher(
        depositSource(chainName, router, chain, this.publisher, this.steps, this.parties),
        { ...this.config.watch, confirmations: confirmationsFor(chainName, this.config.confirmations, this.config.watch.confirmations) },
        {
          cursors: this.cursors,
          expectedChainId: async (name) => this.registry.chain(name)?.chainId.toString(),
          log: this.log,
          ...(this.replaced ? { replaced: this.replaced } : {}),
        },
      );
      this.running.set(chainName, { router, watcher });
      this.idle.delete(chainName);
      watcher.start();
    }
  }
}
