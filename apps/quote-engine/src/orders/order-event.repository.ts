import { Inject, Injectable } from '@nestjs/common';
import type { OrderEvent } from '@xchain/contracts';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';
import { ensureOrder } from './order.repository';
import { STORED_STATUS_SQL } from './order-status';

/** The route of an order, as a fulfilment-time sample records it. */
export interface OrderRoute {
  srcChain: string;
  dstChain: string;
  routeType: string;
}

/**
 * What the order events and the relayer's gasless events write: the steps of an order
 * (`order_events`), its fulfilment-time sample, its stored status and its relay failure.
 */
@Injectable()
export class OrderEventRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  /** Makes the order of a quote the first time it is used (`ensureOrder`); false when there is no such quote. */
  ensureOrder(quoteHash: string): Promise<boolean> {
    return ensureOrder(this.db, quoteHash);
  }

  /** The order's route, or null when there is no such order. */
  routeOf(quoteHash: string): Promise<OrderRoute | null> {
    return this.db.order.findUnique({ where: { quoteHash }, select: { srcChain: true, dstChain: true, routeType: true } });
  }

  /** `orders.status` (the status filter's column) as `storedStatus` (order-status.ts) makes it. */
  async restatus(quoteHash: string): Promise<void> {
    await this.db.$executeRawUnsafe(`UPDATE orders SET status = ${STORED_STATUS_SQL} WHERE quote_hash = $1`, quoteHash);
  }

  /** Forgets the step a reorg withdrew (only the one it names): how many rows went. */
  async forgetStep(quoteHash: string, type: string, txHash: string): Promise<number> {
    return (await this.db.orderEvent.deleteMany({ where: { quoteHash, type, txHash } })).count;
  }

  async forgetSample(quoteHash: string): Promise<void> {
    await this.db.fulfillmentSample.deleteMany({ where: { quoteHash } });
  }

  /** Records a step once: a step already recorded for the order is left as it is. */
  async recordStep(event: OrderEvent): Promise<void> {
    await this.db.orderEvent.upsert({
      where: { quoteHash_type: { quoteHash: event.quote_hash, type: event.type } },
      create: {
        quoteHash: event.quote_hash,
        type: event.type,
        chain: event.chain,
        txHash: event.tx_hash,
        blockNumber: event.block_number !== undefined ? BigInt(event.block_number) : null,
        blockHash: event.block_hash ?? null,
        logIndex: event.log_index ?? null,
        amount: event.amount ?? null,
        recipient: event.recipient ?? null,
        occurredAt: new Date(event.occurred_at),
      },
      update: {},
    });
  }

  /** When the order's deposit and fulfilment were seen, as far as they were. */
  async depositAndFill(quoteHash: string): Promise<{ deposited?: Date; fulfilled?: Date }> {
    const both = await this.db.orderEvent.findMany({ where: { quoteHash, type: { in: ['deposited', 'fulfilled'] } } });
    const at = (type: string) => both.find((e) => e.type === type)?.occurredAt;
    const deposited = at('deposited');
    const fulfilled = at('fulfilled');
    return { ...(deposited ? { deposited } : {}), ...(fulfilled ? { fulfilled } : {}) };
  }

  /** Records the order's fulfilment time once. */
  async recordSample(quoteHash: string, route: OrderRoute, secs: number, fulfilledAt: Date): Promise<void> {
    await this.db.fulfillmentSample.upsert({
      where: { quoteHash },
      create: { quoteHash, ...route, secs, fulfilledAt },
      update: {},
    });
  }

  /**
   * The first failure of a quote's relay stands (the relayer never leaves `failed`); `orders.status`
   * becomes `failed` unless a step was already recorded. True when this call recorded it.
   */
  async recordRelayFailure(quoteHash: string, reason: string, message: string, at: Date): Promise<boolean> {
    const recorded = await this.db.$executeRaw`UPDATE orders
      SET failure_reason = ${reason}, failure_message = ${message}, failed_at = ${at},
          status = CASE WHEN status = 'quoted' THEN 'failed' ELSE status END
      WHERE quote_hash = ${quoteHash.toLowerCase()} AND gasless AND failed_at IS NULL`;
    return recorded === 1;
  }
}
