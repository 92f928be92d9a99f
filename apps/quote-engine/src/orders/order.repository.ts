import { Inject, Injectable } from '@nestjs/common';
import type { OrderEventType, OrderWire } from '@xchain/contracts';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';
import { statusFilter } from './order-status';
import { storedResponse } from '../quoting/stored-response';
import { QuoteRepository, type StoredQuoteRow } from '../quoting/quote.repository';
import { Prisma } from '@xchain/quote-engine-db';
import {
  type OrderListRecords,
  type OrderPageQuery,
  type OrderPosition,
  type OrderRecord,
  type OrderRecords,
  RELAY_FAILED,
  type RecordedSettlement,
} from './order-view.service';

/** Settlement's reasons (settlements.reason) as the order view names them. */
const REFUND_REASONS: Record<string, NonNullable<RecordedSettlement['reason']>> = {
  INVENTORY: 'INSUFFICIENT_INVENTORY',
  MISMATCH: 'DEPOSIT_MISMATCH',
  RETENTION: 'EXPIRED_UNFILLED',
  FILL_FAILED: 'FILL_FAILED',
  OPERATOR: 'OPERATOR',
};

/**
 * The order of a stored quote, made the first time the quote is seen used (a gasless submission,
 * a deposit on chain) from the quote's row: its terms, parties and partner. Idempotent; true when
 * the order exists afterwards, false when there is no such quote (nor order).
 */
export async function ensureOrder(db: PrismaClient, quoteHash: string): Promise<boolean> {
  const hash = quoteHash.toLowerCase();
  const made =
    await db.$executeRaw`INSERT INTO orders (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind,
      api_key_id, partner_id, "order", response, created_at, expires_at, retained_until, recipient, refund_address)
    SELECT quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind,
      api_key_id, partner_id, (body->'o')::jsonb, (body->'r')::jsonb, created_at, expires_at, retained_until,
      decode(substr(body->'o'->>'recipient', 3), 'hex'), decode(substr(body->'o'->>'refund_address', 3), 'hex')
    FROM quotes WHERE quote_hash = ${hash} LIMIT 1
    ON CONFLICT (quote_hash) DO NOTHING`;
  if (made > 0) return true;
  return (await db.order.count({ where: { quoteHash: hash } })) > 0;
}

/** Orders with their order events, read from the quote-engine's database; a quote not (yet) an order is read as one with no step. */
@Injectable()
export class OrderRepository implements OrderRecords, OrderListRecords {
  constructor(
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(QuoteRepository) private readonly quotes: QuoteRepository,
  ) {}

  async find(quoteHash: string): Promise<OrderRecord | undefined> {
    const [row, settled] = await Promise.all([
      this.db.order.findUnique({ where: { quoteHash }, include: { events: true } }),
      this.db.settlement.findUnique({ where: { quoteHash }, select: { decision: true, reason: true } }),
    ]);
    if (row) return record(row, settled ?? undefined);
    const quote = await this.quotes.find(quoteHash);
    return quote ? quoteRecord(quote) : undefined;
  }

  /** The order's partner, else the quote's. */
  async partnerOf(quoteHash: string): Promise<string | undefined> {
    const row = await this.db.order.findUnique({ where: { quoteHash }, select: { partnerId: true } });
    if (row) return row.partnerId ?? undefined;
    return this.quotes.partnerOf(quoteHash);
  }

  /** See ensureOrder. */
  ensure(quoteHash: string): Promise<boolean> {
    return ensureOrder(this.db, quoteHash);
  }

  /**
   * One indexed range read (quotes_partner_created_idx, or quotes_partner_status_created_idx with
   * a status), then the page's settlements in one query.
   */
  async partnerPage(query: OrderPageQuery & { partnerId: string }): Promise<OrderRecord[]> {
    const rows = await this.db.order.findMany({
      where: partnerWhere(query),
      orderBy: [{ createdAt: 'desc' }, { quoteHash: 'desc' }],
      take: query.limit,
      include: { events: true },
    });
    return this.withSettlements(rows);
  }

  /** Past the first `skip` orders of a partner's list (after `after`): the position of the next one, if any. */
  async partnerPositionAfter(query: OrderPageQuery & { partnerId: string; skip: number }): Promise<OrderPosition | undefined> {
    const rows = await this.db.order.findMany({
      where: partnerWhere(query),
      orderBy: [{ createdAt: 'desc' }, { quoteHash: 'desc' }],
      skip: query.skip,
      take: 2,
      select: { createdAt: true, quoteHash: true },
    });
    return rows.length === 2 ? rows[0] : undefined;
  }

  /**
   * The newest `limit` of each of the address's three index ranges (quotes_recipient_created_idx,
   * quotes_refund_created_idx, order_depositors_address_created_idx), filtered, merged and cut to
   * `limit` (an order the address holds two roles in counts once); then those quotes with their
   * events and settlements.
   */
  async addressPage(query: OrderPageQuery & { address: string }): Promise<OrderRecord[]> {
    const address = Buffer.from(query.address.slice(2), 'hex');
    const filters: Prisma.Sql[] = [Prisma.sql`q.retained_until > ${query.retainedAfter}`];
    if (query.chain) filters.push(Prisma.sql`(q.src_chain = ${query.chain} OR q.dst_chain = ${query.chain})`);
    if (query.status) {
      const f = statusFilter(query.status.value, query.status.now);
      filters.push(Prisma.sql`q.status = ${f.stored}`);
      if (f.retained && 'from' in f.retained) filters.push(Prisma.sql`q.retained_until >= ${f.retained.from}`);
      if (f.retained && 'before' in f.retained) filters.push(Prisma.sql`q.retained_until < ${f.retained.before}`);
    }
    const where = Prisma.join(filters, ' AND ');
    // The cursor on each range's own columns, so it bounds that index range.
    const after = (t: Prisma.Sql) =>
      query.after
        ? Prisma.sql`AND (${t}.created_at, ${t}.quote_hash) < (${query.after.createdAt}, ${query.after.quoteHash})`
        : Prisma.empty;
    const [q, d] = [Prisma.raw('q'), Prisma.raw('d')];
    const newest = Prisma.sql`ORDER BY q.created_at DESC, q.quote_hash DESC LIMIT ${query.limit}`;
    const hashes = await this.db.$queryRaw<{ quote_hash: string }[]>`SELECT quote_hash FROM (
        (SELECT q.quote_hash, q.created_at FROM orders q WHERE q.recipient = ${address} ${after(q)} AND ${where} ${newest})
        UNION
        (SELECT q.quote_hash, q.created_at FROM orders q WHERE q.refund_address = ${address} ${after(q)} AND ${where} ${newest})
        UNION
        (SELECT q.quote_hash, q.created_at FROM order_depositors d JOIN orders q ON q.quote_hash = d.quote_hash
          WHERE d.address = ${address} ${after(d)} AND ${where} ORDER BY d.created_at DESC, d.quote_hash DESC LIMIT ${query.limit})
      ) AS hits
      ORDER BY created_at DESC, quote_hash DESC LIMIT ${query.limit}`;
    if (hashes.length === 0) return [];
    const rows = await this.db.order.findMany({ where: { quoteHash: { in: hashes.map((h) => h.quote_hash) } }, include: { events: true } });
    const byHash = new Map(rows.map((r) => [r.quoteHash, r]));
    return this.withSettlements(hashes.flatMap((h) => byHash.get(h.quote_hash) ?? []));
  }

  private async withSettlements(rows: OrderRow[]): Promise<OrderRecord[]> {
    if (rows.length === 0) return [];
    const settled = await this.db.settlement.findMany({
      where: { quoteHash: { in: rows.map((r) => r.quoteHash) } },
      select: { quoteHash: true, decision: true, reason: true },
    });
    const byHash = new Map(settled.map((s) => [s.quoteHash, s]));
    return rows.map((row) => record(row, byHash.get(row.quoteHash)));
  }
}

/**
 * A partner's orders retained past `retainedAfter`, after `after`, with the filters. The view says
 * `expired` of a quote never deposited once `retained_until` passed, which the stored status
 * (`quoted` until a step is recorded) tells apart by that column.
 */
function partnerWhere(query: OrderPageQuery & { partnerId: string }): Prisma.OrderWhereInput {
  const { after, status } = query;
  const and: Prisma.OrderWhereInput[] = [];
  if (query.chain) and.push({ OR: [{ srcChain: query.chain }, { dstChain: query.chain }] });
  // The `lte` alone bounds the index range; the OR then drops the cursor's own instant up to its hash.
  if (after)
    and.push(
      { createdAt: { lte: after.createdAt } },
      { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, quoteHash: { lt: after.quoteHash } }] },
    );
  if (status) {
    const f = statusFilter(status.value, status.now);
    and.push({ status: f.stored });
    if (f.retained && 'from' in f.retained) and.push({ retainedUntil: { gte: f.retained.from } });
    if (f.retained && 'before' in f.retained) and.push({ retainedUntil: { lt: f.retained.before } });
  }
  return { partnerId: query.partnerId, retainedUntil: { gt: query.retainedAfter }, ...(and.length ? { AND: and } : {}) };
}

type OrderRow = Prisma.OrderGetPayload<{ include: { events: true } }>;

/** The terms an order view reads, from an order's row or a stored quote's (the same fields). */
function storedOrder(row: StoredQuoteRow | OrderRow): OrderRecord['order'] {
  return {
    quoteHash: row.quoteHash,
    srcChain: row.srcChain,
    dstChain: row.dstChain,
    gasless: row.gasless,
    order: row.order as OrderWire,
    response: storedResponse(row.response, row.order, row.retainedUntil, row.quoteHash),
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    retainedUntil: row.retainedUntil,
  };
}

/** A stored quote nobody used yet: the view of an order with no step. */
function quoteRecord(row: StoredQuoteRow): OrderRecord {
  return { order: storedOrder(row), events: [] };
}

function record(row: OrderRow, settled: { decision: string; reason: string | null } | undefined): OrderRecord {
  const reason = settled?.reason ? REFUND_REASONS[settled.reason] : undefined;
  return {
    order: storedOrder(row),
    events: row.events.map((e) => ({
      type: e.type as OrderEventType,
      chain: e.chain,
      txHash: e.txHash,
      blockNumber: e.blockNumber,
      occurredAt: e.occurredAt,
      amount: e.amount,
      recipient: e.recipient,
    })),
    ...(settled ? { settlement: { decision: settled.decision as RecordedSettlement['decision'], ...(reason ? { reason } : {}) } } : {}),
    ...(row.failedAt
      ? { failure: { reason: row.failureReason ?? RELAY_FAILED, message: row.failureMessage ?? '', at: row.failedAt } }
      : {}),
  };
}
