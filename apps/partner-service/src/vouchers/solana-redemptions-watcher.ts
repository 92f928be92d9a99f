import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HealthRegistry, LOGGER, token } from '@xchain/service-kit';
import { isSvmKey } from '@xchain/svm-orders';
import type { Logger } from '@xchain/telemetry';
import { PARTNERS_CONFIG, type PartnersConfig } from '../config';
import { ChainCursorsRepository } from '../chain/chain-cursors.repository';
import { readVoucherRedemptions } from './solana-redemptions';
import { type SignatureEntry, SolanaAddressReader, type SolanaChain, SolanaPasses, SolanaWatch } from '@xchain/chain-watch';

/** What the redemption reader asks of a cluster (no block hashes needed). */
export type SolanaRedemptionChain = Omit<SolanaChain, 'blockhash'>;
import { solanaVoucherCursorName } from './solana-redemptions-reader';
import { type SolanaRedemptionOutcome, recordSolanaRedemption } from './solana-redemptions-store';
import { VouchersRepository } from './vouchers.repository';

export const SOLANA_REDEMPTION_CHAIN = token<SolanaRedemptionChain | null>('SOLANA_REDEMPTION_CHAIN');
export const SOLANA_REDEMPTION_WATCH = token<SolanaRedemptionWatchOptions>('SOLANA_REDEMPTION_WATCH');

export interface SolanaRedemptionWatchOptions {
  pollMs: number;
  /** First slot read by a position that has read nothing yet; default: the confirmed slot then. */
  startSlot?: number;
}

/**
 * Marks Solana vouchers redeemed from the voucher program's confirmed transactions, as the EVM
 * watchers do from `VoucherRedeemed` events: each Solana entry of `voucher_routers` (a base58
 * program id) is read from its own saved position every `pollMs`. Off without a Solana RPC or a
 * Solana voucher program; `/readyz` reports it under `solana_vouchers` and never fails on it.
 */
@Injectable()
export class SolanaRedemptionsWatcher extends SolanaWatch implements OnApplicationBootstrap, OnApplicationShutdown {
  /** Chain name (the `voucher_routers` key) and program id of each Solana voucher program. */
  readonly programs: readonly { chainName: string; programId: string }[];

  /** Each program read, as the chain watcher metrics read it (slots for blocks; `confirmed` is the depth). */
  get watchers(): { name: string; chainName: string; confirmations: number; progress: SolanaAddressReader['progress'] }[] {
    const chainOf = new Map(this.programs.map((p) => [p.programId, p.chainName]));
    return [...this.readers.values()].map((r) => ({
      name: r.name,
      chainName: chainOf.get(r.address) ?? 'solana',
      confirmations: 0,
      progress: r.progress,
    }));
  }

  constructor(
    @Inject(SOLANA_REDEMPTION_CHAIN) private readonly chain: SolanaRedemptionChain | null,
    @Inject(SOLANA_REDEMPTION_WATCH) private readonly opts: SolanaRedemptionWatchOptions,
    @Inject(PARTNERS_CONFIG) config: Pick<PartnersConfig, 'voucher_routers'>,
    @Inject(VouchersRepository) private readonly vouchers: Pick<VouchersRepository, 'byId' | 'markRedeemed'>,
    @Inject(ChainCursorsRepository) private readonly cursors: Pick<ChainCursorsRepository, 'load' | 'save'>,
    @Inject(HealthRegistry) health: Pick<HealthRegistry, 'register'>,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    super();
    this.programs = Object.entries(config.voucher_routers)
      .filter(([, address]) => isSvmKey(address))
      .map(([chainName, programId]) => ({ chainName, programId }));
    if (chain && this.programs.length > 0) this.passes = new SolanaPasses(chain, { pollMs: opts.pollMs, label: 'solana vouchers' }, log);
    health.register('solana_vouchers', async () => ({ ok: true, detail: this.detail() }));
  }

  detail(): string {
    if (!this.chain) return 'off (SOLANA_RPC_URL unset)';
    if (this.programs.length === 0) return 'off (voucher_routers names no Solana voucher program)';
    const parts = [...this.readers.values()].map(
      (r) =>
        `${r.address}: ${r.failure ? `retrying: ${r.failure}` : r.readUpTo !== undefined ? `read up to slot ${r.readUpTo} (confirmed)` : 'starting'}`,
    );
    if (this.passes?.clusterNote) parts.push(`cluster: ${this.passes.clusterNote}`);
    return parts.length ? parts.join('; ') : 'starting';
  }

  /** The reader of each program on this cluster (a new cluster starts new positions). */
  protected sync(genesis: string): SolanaAddressReader[] {
    return this.programs.map(({ chainName, programId }) => {
      const name = solanaVoucherCursorName(chainName, programId, genesis);
      for (const [key, r] of this.readers) if (r.address === programId && key !== name) this.readers.delete(key);
      let reader = this.readers.get(name);
      if (!reader) {
        reader = new SolanaAddressReader(
          name,
          programId,
          this.chain!,
          this.cursors,
          (e) => this.handle(chainName, programId, e),
          this.opts.startSlot,
        );
        this.readers.set(name, reader);
      }
      return reader;
    });
  }

  /** One listed transaction: its redeem_voucher instructions, each voucher marked once. */
  private async handle(chainName: string, programId: string, entry: SignatureEntry): Promise<void> {
    if (entry.err !== null) return; // failed: the program's effects were rolled back
    const tx = await this.chain!.transaction(entry.signature);
    if (!tx) throw new Error(`getTransaction ${entry.signature}: not served yet at confirmed`);
    const { redeemed, unreadable } = readVoucherRedemptions(tx, programId);
    for (const u of unreadable)
      this.log.warn(
        { signature: entry.signature, index: u.index, reason: u.reason },
        'solana vouchers: unreadable redeem_voucher instruction skipped',
      );
    for (const r of redeemed) {
      const blockTime = tx.blockTime ?? entry.blockTime;
      const outcome: SolanaRedemptionOutcome = await recordSolanaRedemption(this.vouchers, {
        chainName,
        programId,
        voucherId: r.voucher.id,
        signature: entry.signature,
        redeemedAt: blockTime === null || blockTime === undefined ? null : new Date(blockTime * 1000),
      });
      const fields = { chain: chainName, voucher_id: r.voucher.id, signature: entry.signature, slot: tx.slot };
      if (outcome === 'unknown') this.log.warn(fields, 'solana vouchers: redemption of a voucher this service did not issue skipped');
      else if (outcome === 'redeemed') this.log.info(fields, 'solana vouchers: voucher redeemed');
    }
  }
}
