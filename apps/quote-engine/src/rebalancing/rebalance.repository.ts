import { Inject, Injectable } from '@nestjs/common';
import type { PrismaClient, RebalanceMove } from '@xchain/quote-engine-db';
import { Clock } from '@xchain/service-kit';
import { DB } from '../db.providers';

export type { RebalanceMove } from '@xchain/quote-engine-db';

export type MoveState = 'planned' | 'approved' | 'burned' | 'attested' | 'received' | 'failed' | 'stuck';
/** The states of a move still on its way: it counts toward its destination, and no second one goes there. */
export const OPEN_STATES: readonly MoveState[] = ['planned', 'approved', 'burned', 'attested'];

export interface NewMove {
  id: string;
  token: string;
  srcChain: string;
  dstChain: string;
  amount: bigint;
  maxFee: bigint;
}

/** What a step records when the move leaves `from`. */
export interface StepRecord {
  burnTx?: string;
  message?: string;
  attestation?: string;
  feeExecuted?: bigint;
  mintTx?: string;
  error?: string;
}

/** Planning one pass under the lock: the moves open now in, the moves to write out. */
export type PlanUnderLock = (open: RebalanceMove[]) => Promise<NewMove[]> | NewMove[];

/** Serializes planning across replicas (pg_advisory_xact_lock's key: any constant of this table's own). */
const PLAN_LOCK = 4_700_047;

/**
 * Rebalancing moves (issue 47). A move is written before anything is signed and leaves each state
 * only from the state before it (a conditional update that reports whether it happened), so two
 * replicas, a retry or a restart never take a step twice. Planning runs under a transaction-scoped
 * advisory lock, so two replicas never plan from the same view of what is open; the unique index
 * on an open move per (token, destination) refuses a second one all the same.
 */
@Injectable()
export class RebalanceRepository {
  constructor(
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** Moves still on their way, oldest first. */
  open(): Promise<RebalanceMove[]> {
    return this.db.rebalanceMove.findMany({ where: { state: { in: [...OPEN_STATES] } }, orderBy: { plannedAt: 'asc' } });
  }

  /** Runs `plan` over the open moves with the planning lock held, and writes what it returns (each skipped if one is open into its destination). Returns those written. */
  async plan(plan: PlanUnderLock): Promise<NewMove[]> {
    return this.db.$transaction(async (t) => {
      await t.$executeRaw`SELECT pg_advisory_xact_lock(${PLAN_LOCK})`;
      const open = await t.rebalanceMove.findMany({ where: { state: { in: [...OPEN_STATES] } } });
      const written: NewMove[] = [];
      for (const m of await plan(open)) {
        const n = await t.$executeRaw`
          INSERT INTO rebalance_moves (id, token, src_chain, dst_chain, amount, max_fee, state, planned_at, updated_at)
          VALUES (${m.id}, ${m.token}, ${m.srcChain}, ${m.dstChain}, ${m.amount.toString()}::numeric, ${m.maxFee.toString()}::numeric,
                  'planned', ${this.clock.now()}, ${this.clock.now()})
          ON CONFLICT DO NOTHING`;
        if (n === 1) written.push(m);
      }
      return written;
    });
  }

  /** `from` → `to` with what the step recorded; false when the move was no longer in `from` (another replica took the step). */
  async advance(id: string, from: MoveState, to: MoveState, record: StepRecord = {}): Promise<boolean> {
    const now = this.clock.now();
    const r = await this.db.rebalanceMove.updateMany({
      where: { id, state: from },
      data: {
        state: to,
        ...(record.burnTx !== undefined ? { burnTx: record.burnTx } : {}),
        ...(record.message !== undefined ? { message: record.message } : {}),
        ...(record.attestation !== undefined ? { attestation: record.attestation } : {}),
        ...(record.feeExecuted !== undefined ? { feeExecuted: record.feeExecuted.toString() } : {}),
        ...(record.mintTx !== undefined ? { mintTx: record.mintTx } : {}),
        ...(record.error !== undefined ? { error: record.error } : {}),
        ...(to === 'burned' ? { burnedAt: now } : {}),
        ...(to === 'attested' ? { attestedAt: now } : {}),
        ...(to === 'received' ? { receivedAt: now } : {}),
        updatedAt: now,
      },
    });
    return r.count === 1;
  }

  find(id: string): Promise<RebalanceMove | null> {
    return this.db.rebalanceMove.findUnique({ where: { id } });
  }

  /** The latest moves that ended (received, failed or stuck), newest first. */
  recent(limit = 20): Promise<RebalanceMove[]> {
    return this.db.rebalanceMove.findMany({
      where: { state: { notIn: [...OPEN_STATES] } },
      orderBy: { updatedAt: 'desc' },
      take: limit,
    });
  }

  /**
   * Per source chain and source token (as the order names it: bytes32 hex), the deposits of filled
   * orders not yet claimed (claim due or batched): the filler gets them back when they are claimed.
   */
  async claimsDue(): Promise<{ chain: string; token: string; due: bigint }[]> {
    const rows = await this.db.$queryRaw<{ chain: string; token: string; due: string }[]>`
      SELECT d.chain, q."order"->>'src_token' AS token, SUM(d.amount::numeric)::text AS due
      FROM settlements s
      JOIN order_events d ON d.quote_hash = s.quote_hash AND d.type = 'deposited' AND d.amount IS NOT NULL
      JOIN orders q ON q.quote_hash = s.quote_hash
      WHERE s.claim IN ('due', 'batched')
      GROUP BY d.chain, q."order"->>'src_token'`;
    return rows.map((r) => ({ chain: r.chain, token: r.token, due: BigInt(r.due) }));
  }
}
