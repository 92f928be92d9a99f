import { Inject, Injectable } from '@nestjs/common';
import type { PrismaClient, StrayDeposit } from '@xchain/quote-engine-db';
import { Clock } from '@xchain/service-kit';
import { DB } from '../db.providers';

export type { StrayDeposit };

/** Why a deposit into the vault is not an order's deposit (kept on its `stray_deposits` row). */
export type StrayReason = 'NO_QUOTE' | 'AFTER_RETENTION' | 'WRONG_TOKEN' | 'WRONG_AMOUNT' | 'MISMATCH';

/** A deposit into the vault that matched no retained quote, as the Solana watcher read it. */
export interface NewStrayDeposit {
  chain: string;
  signature: string;
  memoIndex: number;
  quoteHash: string;
  sender: string;
  /** SOL, or the base58 SPL mint. */
  mint: string;
  amount: bigint;
  reason: StrayReason;
  detail: string;
  slot: number;
  blockTime: Date;
}

/**
 * Every read and write of `stray_deposits`. A row is inserted once (reading a transaction again is
 * a no-op) and leaves `open` once, to `returned` or `stuck`, so two replicas never move it twice.
 */
@Injectable()
export class StrayDepositRepository {
  constructor(
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** True when the deposit is new (the first reading records it). */
  async record(s: NewStrayDeposit): Promise<boolean> {
    const rows = await this.db.$executeRaw`
      INSERT INTO stray_deposits (chain, signature, memo_index, quote_hash, sender, mint, amount, reason, detail, slot, block_time)
      VALUES (${s.chain}, ${s.signature}, ${s.memoIndex}, ${s.quoteHash}, ${s.sender}, ${s.mint}, ${s.amount.toString()}::numeric,
              ${s.reason}, ${s.detail}, ${s.slot}, ${s.blockTime})
      ON CONFLICT DO NOTHING`;
    return rows === 1;
  }

  /** Open stray deposits, oldest first. */
  open(limit: number): Promise<StrayDeposit[]> {
    return this.db.strayDeposit.findMany({ where: { state: 'open' }, orderBy: { createdAt: 'asc' }, take: limit });
  }

  /** open → returned (or stuck, with the error); false when it was not open any more. */
  async close(
    key: Pick<StrayDeposit, 'chain' | 'signature' | 'memoIndex'>,
    outcome: { state: 'returned'; returnTx: string | null } | { state: 'stuck'; error: string },
  ): Promise<boolean> {
    const r = await this.db.strayDeposit.updateMany({
      where: { chain: key.chain, signature: key.signature, memoIndex: key.memoIndex, state: 'open' },
      data:
        outcome.state === 'returned'
          ? { state: 'returned', returnTx: outcome.returnTx, updatedAt: this.clock.now() }
          : { state: 'stuck', error: outcome.error, updatedAt: this.clock.now() },
    });
    return r.count === 1;
  }

  /** The operator's report: how many are in each state, and the stuck ones, newest first. */
  async reportRows(): Promise<{ counts: Record<'open' | 'returned' | 'stuck', number>; stuck: StrayDeposit[] }> {
    const [groups, stuck] = await Promise.all([
      this.db.strayDeposit.groupBy({ by: ['state'], _count: { _all: true } }),
      this.db.strayDeposit.findMany({ where: { state: 'stuck' }, orderBy: { updatedAt: 'desc' }, take: 50 }),
    ]);
    const n = (state: string) => groups.find((g) => g.state === state)?._count._all ?? 0;
    return { counts: { open: n('open'), returned: n('returned'), stuck: n('stuck') }, stuck };
  }
}
