import { Inject, Injectable } from '@nestjs/common';
import type { OrderEventType, OrderWire } from '@xchain/contracts';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';
import { storedResponse } from '../quoting/stored-response';
import type { OrderRecords, RecordedOrderEvent, RecordedSettlement, StoredOrder } from './order-view.service';

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

  async find(quoteHash: string): Promise<{ order: StoredOrder; events: RecordedOrderEvent[]; settlement?: RecordedSettlement } | undefined> {
    const [row, settled] = await Promise.all([
      this.db.quote.findUnique({ where: { quoteHash }, include: { events: true } }),
      this.db.settlement.findUnique({ where: { quoteHash }, select: { decision: true, reason: true } }),
    ]);
    if (!row) return undefined;
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
      })),
      ...(settled ? { settlement: { decision: settled.decision as RecordedSettlement['decision'], ...(reason ? { reason } : {}) } } : {}),
    };
  }
}
