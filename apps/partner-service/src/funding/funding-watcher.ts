import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { PrismaClient } from '@xchain/partner-service-db';
import { HealthRegistry, LOGGER } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import type { Address } from 'viem';
import { PARTNERS_CONFIG, type PartnersConfig } from '../config';
import { DB } from '../db.providers';
import { RegistryClient } from '../registry-client';
import type { FundingChain } from './funding-chain';
import { FundingDepositsService } from './funding-deposits.service';

export const FUNDING_CHAIN = Symbol('FUNDING_CHAIN');
export const FUNDING_WATCH = Symbol('FUNDING_WATCH');
export interface FundingWatchOptions {
  confirmations: number;
  pollMs: number;
  maxBlockRange: number;
  startBlock?: number;
}

/**
 * Reads the funding router's `Funded` events block range by block range, `confirmations` behind
 * the head, and credits each through FundingDepositsService. The last block fully processed is
 * saved, so a restart resumes where it stopped; a deposit that cannot be valued yet (no fresh
 * price) stops the pass at its block and is retried on the next poll. Readiness does not depend
 * on the chain: a lagging or failing watcher shows in `/readyz` detail, not as a 503.
 */
@Injectable()
export class FundingWatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private pass?: Promise<void>;
  private state: { ok: boolean; detail: string } = { ok: true, detail: 'starting' };
  private verifiedChain = false;

  constructor(
    @Inject(FUNDING_CHAIN) private readonly chain: FundingChain | undefined,
    @Inject(FUNDING_WATCH) private readonly opts: FundingWatchOptions,
    @Inject(PARTNERS_CONFIG) private readonly config: PartnersConfig,
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(RegistryClient) private readonly registry: RegistryClient,
    @Inject(FundingDepositsService) private readonly deposits: FundingDepositsService,
    @Inject(HealthRegistry) health: HealthRegistry,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    health.register('funding_watcher', async () => (this.chain ? { ok: true, detail: this.state.detail } : { ok: true, detail: 'off (FUNDING_RPC_URL unset)' }));
  }

  onApplicationBootstrap(): void {
    if (this.chain) this.schedule(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pass;
  }

  private get cursorName(): string {
    return `funding:${this.config.funding.chain}:${this.config.funding.router_address.toLowerCase()}`;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.pass = this.readOnce()
        .catch((err: unknown) => {
          const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
          this.state = { ok: false, detail: `retrying: ${message}` };
          this.log.warn({ err: message }, 'funding watcher pass failed');
        })
        .finally(() => this.schedule(this.opts.pollMs));
    }, delayMs);
  }

  /** One pass: from the saved position up to the confirmed head, at most maxBlockRange blocks a call. */
  async readOnce(): Promise<void> {
    const chain = this.chain!;
    const name = this.config.funding.chain;
    if (!this.verifiedChain) {
      const [actual, listed] = await Promise.all([chain.chainId(), this.registry.chain(name)]);
      if (!listed || String(actual) !== listed.chain_id) {
        throw new Error(`FUNDING_RPC_URL serves chain id ${actual}, but the funding chain ${name} is ${listed?.chain_id ?? 'not listed'}`);
      }
      this.verifiedChain = true;
    }
    const safeHead = (await chain.head()) - BigInt(this.opts.confirmations);
    let done = await this.cursor(safeHead);
    while (done < safeHead && !this.stopped) {
      const from = done + 1n;
      const to = bigintMin(safeHead, done + BigInt(this.opts.maxBlockRange));
      const logs = await chain.fundedLogs(this.config.funding.router_address as Address, from, to);
      for (const log of logs) {
        try {
          const outcome = await this.deposits.record(name, log);
          if (outcome !== 'duplicate') this.log.info({ tx_hash: log.txHash, log_index: log.logIndex, funding_id: log.fundingId, outcome }, 'funding deposit');
        } catch (err) {
          // Everything before this block is done; this block is retried (its recorded logs are skipped).
          await this.saveCursor(log.blockNumber - 1n);
          throw err;
        }
      }
      await this.saveCursor(to);
      done = to;
    }
    this.state = { ok: true, detail: `read up to block ${done} (${this.opts.confirmations} confirmations)` };
  }

  private async cursor(safeHead: bigint): Promise<bigint> {
    const row = await this.db.chainCursor.findUnique({ where: { name: this.cursorName } });
    if (row) return row.block;
    const start = this.opts.startBlock !== undefined ? BigInt(this.opts.startBlock) - 1n : safeHead;
    await this.saveCursor(start);
    return start;
  }

  /** Only ever moves forward, so two replicas (or a retry) cannot move it back. */
  private async saveCursor(block: bigint): Promise<void> {
    await this.db.$executeRaw`
      INSERT INTO chain_cursors (name, block, updated_at) VALUES (${this.cursorName}, ${block}, now())
      ON CONFLICT (name) DO UPDATE SET block = GREATEST(chain_cursors.block, EXCLUDED.block), updated_at = now()`;
  }
}

function bigintMin(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
