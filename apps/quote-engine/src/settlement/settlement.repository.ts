import { Inject, Injectable } from '@nestjs/common';
import type { DestinationCallView, OrderWire } from '@xchain/contracts';
import type { PrismaClient, Settlement } from '@xchain/quote-engine-db';
import { Clock } from '@xchain/service-kit';
import { DB } from '../db.providers';

export type SettlementStep = 'fill' | 'cancel' | 'refund';
export type RefundReason = 'INVENTORY' | 'RETENTION' | 'MISMATCH' | 'FILL_FAILED' | 'OPERATOR';

/** A deposited order no decision was taken for yet, with what deciding needs. */
export interface Undecided {
  quoteHash: string;
  srcChain: string;
  dstChain: string;
  order: OrderWire;
  retainedUntil: Date;
  /** The deposit as the chain watcher recorded it. */
  deposit: { chain: string; amount: string | null };
}

/**
 * Every read and write of settlements. The decision is an INSERT keyed by the quote hash (the
 * first one stands, whichever replica takes it); every later change moves from an expected step,
 * so two replicas, a retry or a restart never move a settlement twice.
 */
@Injectable()
export class SettlementRepository {
  constructor(
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** Deposited orders without a decision (and not already settled on chain by other means), oldest first. */
  async undecided(limit: number): Promise<Undecided[]> {
    const rows = await this.db.$queryRaw<
      {
        quote_hash: string;
        src_chain: string;
        dst_chain: string;
        order: OrderWire;
        retained_until: Date;
        chain: string;
        amount: string | null;
      }[]
    >`
      SELECT q.quote_hash, q.src_chain, q.dst_chain, q."order", q.retained_until, e.chain, e.amount
      FROM order_events e JOIN orders q ON q.quote_hash = e.quote_hash
      WHERE e.type = 'deposited'
        AND NOT EXISTS (SELECT 1 FROM settlements s WHERE s.quote_hash = e.quote_hash)
        AND NOT EXISTS (SELECT 1 FROM order_events f WHERE f.quote_hash = e.quote_hash AND f.type IN ('fulfilled', 'refunded'))
      ORDER BY e.received_at
      LIMIT ${limit}`;
    return rows.map((r) => ({
      quoteHash: r.quote_hash,
      srcChain: r.src_chain,
      dstChain: r.dst_chain,
      order: r.order,
      retainedUntil: r.retained_until,
      deposit: { chain: r.chain, amount: r.amount },
    }));
  }

  /**
   * Tokens are keyed as `tokenKey` gives them (EVM addresses in lower case, Solana mints as is).
   * Decides a fill if `available(reservedNow)` allows `amount` of the destination token, else a
   * refund for INVENTORY, in one transaction holding a lock per (chain, token), so two deciders
   * can never reserve the same inventory twice. Returns the decision taken (or the one that
   * already stood).
   */
  async decideFill(
    u: Pick<Undecided, 'quoteHash' | 'srcChain' | 'dstChain'>,
    dstToken: string,
    amount: bigint,
    balance: bigint,
    refundStep: SettlementStep,
  ): Promise<'fill' | 'refund'> {
    const token = dstToken;
    return this.db.$transaction(async (t) => {
      await t.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`${u.dstChain}:${token}`}))`;
      const [sum] = await t.$queryRaw<{ reserved: string | null }[]>`
        SELECT SUM(reserved)::text AS reserved FROM settlements WHERE dst_chain = ${u.dstChain} AND dst_token = ${token} AND reserved > 0`;
      const reserved = BigInt(sum?.reserved ?? '0');
      const fill = balance - reserved >= amount;
      await t.$executeRaw`
        INSERT INTO settlements (quote_hash, decision, reason, step, state, src_chain, dst_chain, dst_token, reserved)
        VALUES (${u.quoteHash}, ${fill ? 'fill' : 'refund'}, ${fill ? null : 'INVENTORY'}, ${fill ? 'fill' : refundStep}, 'open',
                ${u.srcChain}, ${u.dstChain}, ${token}, ${fill ? amount.toString() : '0'}::numeric)
        ON CONFLICT (quote_hash) DO NOTHING`;
      const row = await t.settlement.findUniqueOrThrow({ where: { quoteHash: u.quoteHash }, select: { decision: true } });
      return row.decision as 'fill' | 'refund';
    });
  }

  /** Decides a refund outright (the order cannot be filled whatever the inventory). */
  async decideRefund(
    u: Pick<Undecided, 'quoteHash' | 'srcChain' | 'dstChain'>,
    dstToken: string,
    reason: RefundReason,
    step: SettlementStep,
    error?: string,
  ): Promise<void> {
    await this.db.$executeRaw`
      INSERT INTO settlements (quote_hash, decision, reason, step, state, src_chain, dst_chain, dst_token, error)
      VALUES (${u.quoteHash}, 'refund', ${reason}, ${step}, 'open', ${u.srcChain}, ${u.dstChain}, ${dstToken}, ${error ?? null})
      ON CONFLICT (quote_hash) DO NOTHING`;
  }

  /** Open settlements, oldest first, with their quotes' orders (and destination calls, issue 39 §4). */
  async open(limit: number): Promise<(Settlement & { order: OrderWire; destinationCall?: DestinationCallView })[]> {
    const rows = await this.db.settlement.findMany({ where: { state: 'open' }, orderBy: { decidedAt: 'asc' }, take: limit });
    if (rows.length === 0) return [];
    const quotes = await this.db.order.findMany({
      where: { quoteHash: { in: rows.map((r) => r.quoteHash) } },
      select: { quoteHash: true, order: true, response: true },
    });
    const orders = new Map(quotes.map((q) => [q.quoteHash, { order: q.order as OrderWire, call: destinationCallOf(q.response) }]));
    return rows.flatMap((r) => {
      const found = orders.get(r.quoteHash);
      return found ? [{ ...r, order: found.order, ...(found.call ? { destinationCall: found.call } : {}) }] : [];
    });
  }

  /** The step `from` is done: go on to `to`, or settle (null). A fill done releases its reservation. */
  async advance(quoteHash: string, from: SettlementStep, to: SettlementStep | null): Promise<boolean> {
    const r = await this.db.settlement.updateMany({
      where: { quoteHash, state: 'open', step: from },
      data: { step: to, state: to ? 'open' : 'done', reserved: 0, updatedAt: this.clock.now() },
    });
    return r.count === 1;
  }

  /**
   * A confirmed fill: settled, its reservation released, and its deposit due to the treasury (D15),
   * from an EVM router or the Solana vault alike, in the same update: a fill that is done is a claim
   * that is owed, whatever happens to the process after it.
   */
  async filled(quoteHash: string): Promise<boolean> {
    const r = await this.db.settlement.updateMany({
      where: { quoteHash, state: 'open', step: 'fill' },
      data: { step: null, state: 'done', reserved: 0, claim: 'due', updatedAt: this.clock.now() },
    });
    return r.count === 1;
  }

  /**
   * Gathers up to `max` claims due on a chain into one batch (each solo one alone; with `byToken`,
   * one batch per source token, as a Solana claim is one transfer), and names each by `idOf` its
   * sorted quote hashes. Rows are locked and skipped if another replica holds them, and move only
   * from `due`, so an order is in one batch at most. Returns the batches formed.
   */
  async formClaimBatches(chain: string, max: number, idOf: (hashes: string[]) => string, byToken = false): Promise<number> {
    return this.db.$transaction(async (t) => {
      const due = await t.$queryRaw<{ quote_hash: string; claim_solo: boolean; src_token: string | null }[]>`
        SELECT s.quote_hash, s.claim_solo, q."order"->>'src_token' AS src_token
        FROM settlements s JOIN orders q ON q.quote_hash = s.quote_hash
        WHERE s.claim = 'due' AND s.src_chain = ${chain}
        ORDER BY s.updated_at LIMIT ${max} FOR UPDATE OF s SKIP LOCKED`;
      const together = new Map<string, string[]>();
      for (const d of due.filter((x) => !x.claim_solo)) {
        const key = byToken ? (d.src_token ?? '') : '';
        together.set(key, [...(together.get(key) ?? []), d.quote_hash]);
      }
      const batches = [...together.values(), ...due.filter((d) => d.claim_solo).map((d) => [d.quote_hash])];
      for (const hashes of batches) {
        const sorted = [...hashes].sort();
        await t.settlement.updateMany({
          where: { quoteHash: { in: sorted }, claim: 'due' },
          data: { claim: 'batched', claimBatch: idOf(sorted), updatedAt: this.clock.now() },
        });
      }
      return batches.length;
    });
  }

  /** Every batch formed and not yet claimed, with its orders (sorted by quote hash, as its id was made). */
  async claimBatches(): Promise<{ id: string; chain: string; orders: { quoteHash: string; order: OrderWire }[] }[]> {
    const rows = await this.db.$queryRaw<{ claim_batch: string; src_chain: string; quote_hash: string; order: OrderWire }[]>`
      SELECT s.claim_batch, s.src_chain, s.quote_hash, q."order" FROM settlements s JOIN orders q ON q.quote_hash = s.quote_hash
      WHERE s.claim = 'batched' ORDER BY s.claim_batch, s.quote_hash`;
    const out = new Map<string, { id: string; chain: string; orders: { quoteHash: string; order: OrderWire }[] }>();
    for (const r of rows) {
      const b = out.get(r.claim_batch) ?? { id: r.claim_batch, chain: r.src_chain, orders: [] };
      b.orders.push({ quoteHash: r.quote_hash, order: r.order });
      out.set(r.claim_batch, b);
    }
    return [...out.values()];
  }

  /** A claim batch's outcome: claimed; or failed, when its orders are claimed again alone (a solo one that fails is stuck). */
  async claimOutcome(id: string, outcome: 'claimed' | 'failed', error?: string): Promise<number> {
    if (outcome === 'claimed') {
      return (
        await this.db.settlement.updateMany({
          where: { claimBatch: id, claim: 'batched' },
          data: { claim: 'claimed', updatedAt: this.clock.now() },
        })
      ).count;
    }
    const solo = await this.db.settlement.updateMany({
      where: { claimBatch: id, claim: 'batched', claimSolo: true },
      data: { claim: 'stuck', error: error ?? null, updatedAt: this.clock.now() },
    });
    const again = await this.db.settlement.updateMany({
      where: { claimBatch: id, claim: 'batched', claimSolo: false },
      data: { claim: 'due', claimSolo: true, claimBatch: null, updatedAt: this.clock.now() },
    });
    return solo.count + again.count;
  }

  /** Chains with claims due. */
  async claimChains(): Promise<string[]> {
    const rows = await this.db.settlement.findMany({ where: { claim: 'due' }, distinct: ['srcChain'], select: { srcChain: true } });
    return rows.map((r) => r.srcChain);
  }

  /** A fill failed for good: the order is refunded instead, and its reservation released. */
  async fillFailed(quoteHash: string, refundStep: SettlementStep, error: string): Promise<boolean> {
    const r = await this.db.settlement.updateMany({
      where: { quoteHash, state: 'open', step: 'fill' },
      data: { decision: 'refund', reason: 'FILL_FAILED', step: refundStep, reserved: 0, error, updatedAt: this.clock.now() },
    });
    return r.count === 1;
  }

  /** Nothing more the system can do by itself: an operator must look (the error says why). */
  async stuck(quoteHash: string, from: SettlementStep, error: string): Promise<boolean> {
    const r = await this.db.settlement.updateMany({
      where: { quoteHash, state: 'open', step: from },
      data: { step: null, state: 'stuck', reserved: 0, error, updatedAt: this.clock.now() },
    });
    return r.count === 1;
  }

  /** What the operator's report shows, from the database alone (balances come from the relayer). */
  async reportRows() {
    const [reservations, open, claims, stuck, undecided, oldest] = await Promise.all([
      this.db.$queryRaw<{ dst_chain: string; dst_token: string; reserved: string; n: number }[]>`
        SELECT dst_chain, dst_token, COALESCE(SUM(reserved) FILTER (WHERE reserved > 0), 0)::text AS reserved, COUNT(*) FILTER (WHERE reserved > 0)::int AS n
        FROM settlements WHERE decided_at > now() - interval '7 days' GROUP BY dst_chain, dst_token ORDER BY dst_chain, dst_token`,
      this.db.settlement.groupBy({ by: ['step'], where: { state: 'open' }, _count: { _all: true } }),
      this.db.settlement.groupBy({ by: ['claim'], where: { claim: { not: null } }, _count: { _all: true } }),
      this.db.settlement.findMany({ where: { OR: [{ state: 'stuck' }, { claim: 'stuck' }] }, orderBy: { updatedAt: 'desc' }, take: 50 }),
      this.db.$queryRaw<{ n: number }[]>`
        SELECT COUNT(*)::int AS n FROM order_events e WHERE e.type = 'deposited'
          AND NOT EXISTS (SELECT 1 FROM settlements s WHERE s.quote_hash = e.quote_hash)
          AND NOT EXISTS (SELECT 1 FROM order_events f WHERE f.quote_hash = e.quote_hash AND f.type IN ('fulfilled', 'refunded'))`,
      this.db.$queryRaw<{ quote_hash: string; occurred_at: Date; state: string | null }[]>`
        SELECT e.quote_hash, e.occurred_at, s.state FROM order_events e LEFT JOIN settlements s ON s.quote_hash = e.quote_hash
        WHERE e.type = 'deposited' AND (s.state IS NULL OR s.state = 'open')
          AND NOT EXISTS (SELECT 1 FROM order_events f WHERE f.quote_hash = e.quote_hash AND f.type IN ('fulfilled', 'refunded'))
        ORDER BY e.occurred_at LIMIT 1`,
    ]);
    return { reservations, open, claims, stuck, undecided: undecided[0]?.n ?? 0, oldest: oldest[0] };
  }

  /**
   * Per source chain and token, over deposits recorded since `since`: what was deposited, what was
   * claimed to the treasury, what was refunded, and what is still open (deposited, neither), in base
   * units as the chain watchers recorded them. Deposits = claimed + refunded + open, by construction
   * of the rows; the test is that the chain agrees.
   */
  async reconciliation(
    since: Date,
  ): Promise<{ chain: string; token: string; deposited: string; claimed: string; refunded: string; open: string }[]> {
    return this.db.$queryRaw`
      SELECT d.chain, q."order"->>'src_token' AS token,
        SUM(d.amount::numeric)::text AS deposited,
        COALESCE(SUM(d.amount::numeric) FILTER (WHERE s.claim = 'claimed'), 0)::text AS claimed,
        COALESCE(SUM(r.amount::numeric), 0)::text AS refunded,
        COALESCE(SUM(d.amount::numeric) FILTER (WHERE r.quote_hash IS NULL AND s.claim IS DISTINCT FROM 'claimed'), 0)::text AS open
      FROM order_events d
      JOIN orders q ON q.quote_hash = d.quote_hash
      LEFT JOIN settlements s ON s.quote_hash = d.quote_hash
      LEFT JOIN order_events r ON r.quote_hash = d.quote_hash AND r.type = 'refunded'
      WHERE d.type = 'deposited' AND d.amount IS NOT NULL AND d.occurred_at >= ${since}
      GROUP BY d.chain, q."order"->>'src_token'
      ORDER BY d.chain, token`;
  }

  /** Whether the chain watchers recorded a fill of the order. */
  async filledOnChain(quoteHash: string): Promise<boolean> {
    return (await this.db.orderEvent.count({ where: { quoteHash, type: 'fulfilled' } })) > 0;
  }
}

/** The destination call a stored cross-chain quote answered with, if any. */
function destinationCallOf(response: unknown): DestinationCallView | undefined {
  return (response as { cross_chain?: { destination_call?: DestinationCallView } } | null)?.cross_chain?.destination_call;
}
