import { Inject, Injectable } from '@nestjs/common';
import type { OrderEventType, OrderWire } from '@xchain/contracts';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';
import { storedResponse } from '../quoting/stored-response';
import type { Prisma } from '@xchain/quote-engine-db';
import type { OrderPosition, OrderRecord, OrderRecords, RecordedSettlement } from './order-view.service';

/** Settlement's reasons (settlements.reason) as the order view names them. */
const REFUND_REASONS: Record<string, NonNullable<RecordedSettlement['reason']>> = {
  INVENTORY: 'INSUFFICIENT_INVENTORY',
  MISMATCH: 'DEPOSIT_MISMATCH',
  RETENTION: 'EXPIRED_UNFILLED',
  FILL_FAILED: 'FILL_FAILED',
  OPERATOR: 'OPERATOR',
};

/** Stored quotes with their order events, read from the quote-engine's database. */
@Injectable()
export class OrderRepository implements OrderRecords {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  async find(quoteHash: string): Promise<OrderRecord | undefined> {
    const [row, settled] = await Promise.all([
      this.db.quote.findUnique({ where: { quoteHash }, include: { events: true } }),
      this.db.settlement.findUnique({ where: { quoteHash }, select: { decision: true, reason: true } }),
    ]);
    return row ? record(row, settled ?? undefined) : undefined;
  }

  /** One indexed range read (quotes_partner_created_idx), then the page's settlements in one query. */
  async partnerPage(query: {
    partnerId: string;
    chain?: string;
    after?: OrderPosition;
    retainedAfter: Date;
    limit: number;
  }): Promise<OrderRecord[]> {
    const { after } = query;
    const rows = await this.db.quote.findMany({
      where: {
        partnerId: query.partnerId,
        retainedUntil: { gt: query.retainedAfter },
        ...(query.chain ? { OR: [{ srcChain: query.chain }, { dstChain: query.chain }] } : {}),
        ...(after
          ? { AND: [{ OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, quoteHash: { lt: after.quoteHash } }] }] }
          : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { quoteHash: 'desc' }],
      take: query.limit,
      include: { events: true },
    });
    if (rows.length === 0) return [];
    const settled = await this.db.settlement.findMany({
      where: { quoteHash: { in: rows.map((r) => r.quoteHash) } },
      select: { quoteHash: true, decision: true, reason: true },
    });
    const byHash = new Map(settled.map((s) => [s.quoteHash, s]));
    return rows.map((row) => record(row, byHash.get(row.quoteHash)));
  }
}

type QuoteRow = Prisma.QuoteGetPayload<{ include: { events: true } }>;

function record(row: QuoteRow, settled: { decision: string; reason: string | null } | undefined): OrderRecord {
  const reason = settled?.reason ? REFUND_REASONS[settled.reason] : undefined;
  return {
    order: {
      quoteHash: row.quoteHash,
      srcChain: row.srcChain,
      dstChain: row.dstChain,
      gasless: row.gasless,
      order: row.order as OrderWire,
      response: storedResponse(row.response, row.order, row.retainedUntil),
      createdAt: row.createdAt,
      expiresAt: row.expiresAt,
      retainedUntil: row.retainedUntil,
    },
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
  };
}
