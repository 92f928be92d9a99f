import { Inject, Injectable } from '@nestjs/common';
import type { OrderEventType, OrderWire } from '@xchain/contracts';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';
import { storedResponse } from '../quoting/stored-response';
import type { OrderRecords, RecordedOrderEvent, StoredOrder } from './order-view.service';

/** Stored quotes with their order events, read from the quote-engine's database. */
@Injectable()
export class OrderRepository implements OrderRecords {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  async find(quoteHash: string): Promise<{ order: StoredOrder; events: RecordedOrderEvent[] } | undefined> {
    const row = await this.db.quote.findUnique({ where: { quoteHash }, include: { events: true } });
    if (!row) return undefined;
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
      })),
    };
  }
}
