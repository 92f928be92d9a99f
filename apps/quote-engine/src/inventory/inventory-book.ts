import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Code, OperatorBalanceRpc, RpcError } from '@xchain/contracts';
import { DependencyOutages, RpcClient, chainRpcDependency, serviceDependency, unreachableDependency } from '@xchain/messaging';
import { Clock, LOGGER, Metrics, Periodic, SystemClock, token } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import type { QuotingConfig } from '../quoting-config';
import { RegistryCache } from '../registry/registry-cache';
import { tokenKey } from '../registry/addresses';
import { InventoryRepository } from './inventory.repository';
import { QUOTING_CONFIG } from '../config.tokens';

export const INVENTORY_CONFIG = token<InventoryConfig>('INVENTORY_CONFIG');

export interface InventoryConfig {
  enabled: boolean;
  /** How often every destination token's operator balance is read (and after each decision, that token's). */
  refreshMs: number;
  /** A reading older than this is stale: quotes to that token are refused rather than guessed. */
  maxAgeMs: number;
  requestTimeoutMs: number;
}

interface Reading {
  balance: bigint;
  reserved: bigint;
  /** The operator wallet read (the filler's). */
  wallet: string;
  readAt: number;
}

/** A token's last reading on a chain: the filler's balance, what open fills reserve of it, its wallet, and the reading's age. */
export interface InventoryReading {
  balance: bigint;
  reserved: bigint;
  wallet: string;
  ageMs: number;
}

/** What quoting may promise on a destination token right now. */
export type LiveInventory = { kind: 'unmanaged' } | { kind: 'available'; amount: bigint } | { kind: 'stale'; ageMs: number };

/**
 * Live inventory (D15): per (chain, token), the operator wallet's balance minus what open fills
 * reserve. Read on a schedule and after each settlement decision, never per quote: the quote path
 * only looks here. A chain whose relayer has no operator wallet is not managed (the configured
 * figures alone apply, as before settlement); a managed token whose reading is too old refuses.
 */
@Injectable()
export class InventoryBook implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly readings = new Map<string, Reading>();
  private readonly unmanaged = new Set<string>();
  private readonly readers: ((chain: string, token: string, available: bigint) => void)[] = [];
  private readonly loop: Periodic;
  private failing = false;

  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(RegistryCache) private readonly registry: Pick<RegistryCache, 'listTokens' | 'chain' | 'token'>,
    @Inject(InventoryRepository) private readonly repo: Pick<InventoryRepository, 'reservedBy' | 'reservedAll'>,
    @Inject(INVENTORY_CONFIG) private readonly config: InventoryConfig,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(Metrics) metrics: Metrics,
    @Inject(QUOTING_CONFIG) quoting?: Pick<QuotingConfig, 'inventory_floors'>,
    @Inject(DependencyOutages) private readonly outages?: Pick<DependencyOutages, 'watch'>,
    @Inject(Clock) private readonly clock: Clock = new SystemClock(),
  ) {
    this.loop = new Periodic(
      () => this.refreshAll(),
      config.refreshMs,
      (err) => this.log.warn({ err: String(err) }, 'inventory refresh failed'),
    );
    // Labelled by chain and symbol, as the operator reads them and as quoting.json names floors.
    const labels = ['chain', 'token'];
    const available = metrics.gauge({
      name: 'inventory_available',
      help: 'Operator inventory a quote may promise, destination base units (balance minus reservations)',
      labelNames: labels,
    });
    const reserved = metrics.gauge({ name: 'inventory_reserved', help: 'Destination base units held by open fills', labelNames: labels });
    const age = metrics.gauge({
      name: 'inventory_reading_age_seconds',
      help: 'Seconds since the operator balance was read',
      labelNames: labels,
    });
    const floor = metrics.gauge({
      name: 'inventory_floor',
      help: 'Live inventory below this raises InventoryBelowFloor (quoting.json inventory_floors), base units',
      labelNames: labels,
    });
    for (const [name, amount] of Object.entries(quoting?.inventory_floors ?? {})) {
      const [chain, token] = name.split(':');
      if (chain && token) floor.set({ chain, token }, Number(amount));
    }
    metrics.onScrape('inventory', () => {
      available.reset();
      reserved.reset();
      age.reset();
      const now = this.clock.nowMs();
      for (const [k, r] of this.readings) {
        const [chain, address] = k.split(':') as [string, string];
        const info = this.registry.chain(chain);
        const token = (info && this.registry.token(info, address)?.symbol) ?? address;
        // Gauges are doubles: a balance past 2^53 loses precision here, never in a decision.
        available.set({ chain, token }, Number(r.balance > r.reserved ? r.balance - r.reserved : 0n));
        reserved.set({ chain, token }, Number(r.reserved));
        age.set({ chain, token }, (now - r.readAt) / 1000);
      }
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.enabled) this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  /** For the quote path: memory only. */
  live(chain: string, token: string): LiveInventory {
    if (!this.config.enabled || this.unmanaged.has(chain)) return { kind: 'unmanaged' };
    const vm = this.registry.chain(chain)?.vm;
    const r = vm ? this.readings.get(key(chain, tokenKey(vm, token))) : undefined;
    // Never read yet (the relayer not up, a token just listed): the configured caps alone, as before settlement.
    if (!r) return { kind: 'unmanaged' };
    const ageMs = this.clock.nowMs() - r.readAt;
    if (ageMs > this.config.maxAgeMs) return { kind: 'stale', ageMs };
    return { kind: 'available', amount: r.balance > r.reserved ? r.balance - r.reserved : 0n };
  }

  /** The last reading of a token on a chain (rebalancing plans from it), or undefined when none was taken. */
  reading(chain: string, token: string): InventoryReading | undefined {
    const vm = this.registry.chain(chain)?.vm;
    const r = vm ? this.readings.get(key(chain, tokenKey(vm, token))) : undefined;
    return r && { balance: r.balance, reserved: r.reserved, wallet: r.wallet, ageMs: this.clock.nowMs() - r.readAt };
  }

  /**
   * Calls `reader` after every reading with the chain, the token (as the registry keys it) and what
   * is available; after a whole refresh, only once every token of it was read.
   */
  onReading(reader: (chain: string, token: string, available: bigint) => void): void {
    this.readers.push(reader);
  }

  /** Whether readings are older than a quote may use. */
  get maxAgeMs(): number {
    return this.config.maxAgeMs;
  }

  /**
   * Reads one token again now (after a decision or a fill moved its balance or reservations).
   * `reservations`: every token's, read once for a whole refresh (`refreshAll`), instead of a query
   * for this token.
   */
  async refresh(chain: string, token: string, reservations?: Promise<Map<string, bigint>>): Promise<void> {
    const read = await this.read(chain, token, reservations);
    if (read) this.tell([read]);
  }

  /** Reads one token into the book; what was read, for the readers, or undefined when nothing was. */
  private async read(
    chain: string,
    token: string,
    reservations?: Promise<Map<string, bigint>>,
  ): Promise<{ chain: string; token: string; available: bigint } | undefined> {
    const vm = this.registry.chain(chain)?.vm;
    if (!vm) return undefined;
    const t = tokenKey(vm, token);
    try {
      const [b, reserved] = await Promise.all([
        this.outages
          ? this.outages.watch(
              this.rpc.call(OperatorBalanceRpc, { chain, token: t }, { timeoutMs: this.config.requestTimeoutMs }),
              serviceDependency(OperatorBalanceRpc),
              chainRpcDependency(chain),
            )
          : this.rpc.call(OperatorBalanceRpc, { chain, token: t }, { timeoutMs: this.config.requestTimeoutMs }),
        reservations ? reservations.then((all) => all.get(key(chain, t)) ?? 0n) : this.repo.reservedBy(chain, t),
      ]);
      const balance = BigInt(b.balance);
      this.readings.set(key(chain, t), { balance, reserved, wallet: b.wallet, readAt: this.clock.nowMs() });
      this.unmanaged.delete(chain);
      return { chain, token: t, available: balance > reserved ? balance - reserved : 0n };
    } catch (err) {
      // No operator wallet there, or no RPC for the chain at all: the system does not settle it.
      if (notSettledThere(err)) {
        this.unmanaged.add(chain);
        return undefined;
      }
      throw err;
    }
  }

  private tell(reads: readonly { chain: string; token: string; available: bigint }[]): void {
    for (const r of reads) for (const reader of this.readers) reader(r.chain, r.token, r.available);
  }

  private async refreshAll(): Promise<void> {
    const tokens = this.registry.listTokens().tokens;
    const reservations = this.repo.reservedAll();
    reservations.catch(() => undefined); // each token's refresh reports it
    const results = await Promise.allSettled(tokens.map((t) => this.read(t.chain, t.address, reservations)));
    // Told once every token of the refresh is read: a reader comparing chains sees them all of one refresh.
    this.tell(results.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : [])));
    // A dependency away (the relayer, a chain RPC) is its outage's warning, logged where it was counted.
    const failed = results.filter(
      (r): r is PromiseRejectedResult => r.status === 'rejected' && !(this.outages && unreachableDependency(r.reason)),
    );
    if (failed.length > 0 && !this.failing) {
      this.failing = true;
      this.log.warn(
        { failed: failed.length, of: tokens.length, err: String((failed[0] as PromiseRejectedResult).reason) },
        'inventory: balances not read; quotes to those tokens are refused once their reading is stale',
      );
    } else if (failed.length === 0 && this.failing) {
      this.failing = false;
      this.log.info({ tokens: tokens.length }, 'inventory: balances read again');
    }
  }
}

const key = (chain: string, token: string) => `${chain}:${token}`;

function notSettledThere(err: unknown): boolean {
  if (!(err instanceof RpcError)) return false;
  if (err.status.code === Code.FAILED_PRECONDITION) return true;
  return err.status.code === Code.UNAVAILABLE && err.status.details.some((d) => 'reason' in d && d.reason === 'CHAIN_NOT_RELAYED');
}
