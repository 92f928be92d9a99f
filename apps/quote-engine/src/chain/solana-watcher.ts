import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { CursorStore } from '@xchain/chain-watch';
import { HealthRegistry, LOGGER, token } from '@xchain/service-kit';
import { SOL_MINT_PLACEHOLDER, isSvmKey, vaultTokenAccount } from '@xchain/svm-orders';
import type { Logger } from '@xchain/telemetry';
import { RegistryCache } from '../registry/registry-cache';
import { ORDER_EVENT_PUBLISHER, type OrderEventPublisher } from './order-event-publisher';
import { type SignatureEntry, SolanaAddressReader, type SolanaChain, SolanaPasses, SolanaWatch } from '@xchain/chain-watch';
import { solanaCursorName } from './solana-address-reader';
import { StrayDepositRepository } from '../settlement/stray-deposits.repository';
import { ORDER_PARTIES, type OrderParties } from './order-parties.repository';
import { type QuoteLookup, solanaStepHandler } from './solana-steps';

export const SOLANA_CHAIN = token<SolanaChain | null>('SOLANA_CHAIN');
export const SOLANA_WATCH_CONFIG = token<SolanaWatchConfig>('SOLANA_WATCH_CONFIG');
export const SOLANA_CURSORS = token<Pick<CursorStore, 'load' | 'save'>>('SOLANA_CURSORS');
export const SOLANA_QUOTES = token<QuoteLookup>('SOLANA_QUOTES');

export interface SolanaWatchConfig {
  /** Registry name of the Solana chain (`solana`). */
  chainName: string;
  /** SOLANA_FILLER_ACCOUNTS. */
  fillers: readonly string[];
  pollMs: number;
  /** First slot of a position that has read nothing yet; default: the confirmed slot then. */
  startSlot?: number;
}

/**
 * The Solana side of the order lifecycle, read from confirmed transactions: deposits and refunds
 * from the vault (the registry's `deposit_target`) and its token accounts (one per SPL token the
 * registry lists on the chain: an SPL deposit names only those), fills from the filler accounts.
 * One pass every `pollMs` reads each account from its own saved position. Off without an RPC;
 * `/readyz` reports it under `solana_watcher` and never fails on it.
 */
@Injectable()
export class SolanaWatcher extends SolanaWatch implements OnApplicationBootstrap, OnApplicationShutdown {
  /** Each watched account as the chain watcher metrics read it (slots for blocks; `confirmed` is the depth). */
  watchers(): { name: string; chainName: string; confirmations: number; progress: SolanaAddressReader['progress'] }[] {
    return [...this.readers.values()].map((r) => ({
      name: r.name,
      chainName: this.config.chainName,
      confirmations: 0,
      progress: r.progress,
    }));
  }
  private readonly fillers: ReadonlySet<string>;
  private readonly handle?: (entry: SignatureEntry) => Promise<void>;
  private vaultNote?: string;

  constructor(
    @Inject(SOLANA_CHAIN) private readonly chain: SolanaChain | null,
    @Inject(SOLANA_WATCH_CONFIG) private readonly config: SolanaWatchConfig,
    @Inject(RegistryCache) private readonly registry: Pick<RegistryCache, 'chain' | 'listTokens'>,
    @Inject(SOLANA_CURSORS) private readonly cursors: Pick<CursorStore, 'load' | 'save'>,
    @Inject(ORDER_EVENT_PUBLISHER) publisher: OrderEventPublisher,
    @Inject(SOLANA_QUOTES) quotes: QuoteLookup,
    @Inject(StrayDepositRepository) strays: Pick<StrayDepositRepository, 'record'>,
    @Inject(HealthRegistry) health: Pick<HealthRegistry, 'register'>,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(ORDER_PARTIES) parties?: OrderParties,
  ) {
    super();
    this.fillers = new Set(config.fillers);
    const vault = () => {
      const listed = this.registry.chain(config.chainName);
      return listed?.vm === 'svm' && isSvmKey(listed.depositTarget) ? listed.depositTarget : undefined;
    };
    this.handle = chain
      ? solanaStepHandler({
          chainName: config.chainName,
          chain,
          quotes,
          publisher,
          fillers: this.fillers,
          vault,
          strays,
          log,
          ...(parties ? { parties } : {}),
        })
      : undefined;
    if (chain) this.passes = new SolanaPasses(chain, { pollMs: config.pollMs, label: 'solana watcher' }, log);
    health.register('solana_watcher', async () => ({ ok: true, detail: this.detail() }));
  }

  detail(): string {
    if (!this.chain) return 'off (SOLANA_RPC_URL unset)';
    const readers = [...this.readers.values()];
    const read = readers.map((r) => r.readUpTo).filter((s) => s !== undefined);
    const parts = [
      readers.length === 0
        ? (this.passes?.clusterNote ?? 'starting')
        : `${readers.length} accounts: ${read.length === readers.length ? `read up to slot ${read.reduce((a, b) => (a < b ? a : b))} (confirmed)` : 'starting'}`,
      ...(readers.length > 0 && this.passes?.clusterNote ? [this.passes.clusterNote] : []),
      ...readers.filter((r) => r.failure).map((r) => `${r.address}: retrying: ${r.failure}`),
      ...(this.vaultNote ? [this.vaultNote] : []),
    ];
    return parts.join('; ');
  }

  /** The accounts to read now, after the registry as it is (a new vault or token starts a new position). */
  protected sync(genesis: string): SolanaAddressReader[] {
    const { chainName } = this.config;
    const wanted: string[] = [];
    const listed = this.registry.chain(chainName);
    if (listed?.vm === 'svm' && isSvmKey(listed.depositTarget)) {
      this.vaultNote = undefined;
      wanted.push(listed.depositTarget);
      let mints: string[] = [];
      try {
        mints = this.registry
          .listTokens()
          .tokens.filter((t) => t.chain === chainName && t.address !== SOL_MINT_PLACEHOLDER && isSvmKey(t.address))
          .map((t) => t.address);
      } catch {
        this.vaultNote = 'vault token accounts: waiting for the registry';
      }
      for (const mint of mints) wanted.push(vaultTokenAccount(listed.depositTarget, mint).toBase58());
    } else {
      this.vaultNote = `vault: not watched: ${listed ? 'no svm deposit_target' : `${chainName} is not in the registry`}`;
    }
    wanted.push(...this.config.fillers);
    const keep = new Map(wanted.map((address) => [solanaCursorName(chainName, address, genesis), address]));
    for (const name of this.readers.keys()) if (!keep.has(name)) this.readers.delete(name);
    for (const [name, address] of keep) {
      if (!this.readers.has(name))
        this.readers.set(name, new SolanaAddressReader(name, address, this.chain!, this.cursors, this.handle!, this.config.startSlot));
    }
    return [...this.readers.values()];
  }
}
