import { Inject, Injectable, Optional } from '@nestjs/common';
import { ORDER_EVENTS_STREAM_DEF, ORDER_EVENT_CONSUMERS, OrderEventSchema, type OrderEvent } from '@xchain/contracts';
import { DependencyOutages, DurableConsumerProvider, type DurableConsumerOptions, type NatsConnection } from '@xchain/messaging';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { LOGGER, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { DB } from '../db.providers';
import { Settler } from '../settlement/settler';
import { EtaService } from './eta.service';
import { OrderUpdates } from './order-updates';
import { ensureOrder } from './order.repository';

/**
 * Consumes order events from a JetStream stream with a durable consumer, so none is lost while
 * the quote-engine restarts. Each event is recorded once; a deposit and its fulfilment, in either
 * order, make one fulfilment-time sample.
 */
@Injectable()
export class OrderEventsConsumer extends DurableConsumerProvider<OrderEvent> {
  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(EtaService) private readonly eta: EtaService,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(OrderUpdates) private readonly updates?: Pick<OrderUpdates, 'changed'>,
    @Optional() @Inject(Settler) private readonly settler?: Pick<Settler, 'kick'>,
    @Optional() @Inject(DependencyOutages) private readonly outages?: DependencyOutages,
  ) {
    super();
  }

  protected consumerOptions(): DurableConsumerOptions<OrderEvent> {
    return {
      nc: this.nc,
      stream: ORDER_EVENTS_STREAM_DEF,
      durable: ORDER_EVENT_CONSUMERS.quoteEngine, // the one durable name its NATS user may use (D14)
      schema: OrderEventSchema,
      handle: (event) => this.record(event),
      retryDelayMs: 1000,
      log: this.log,
      ...(this.outages ? { outages: this.outages } : {}),
      label: 'order events',
    };
  }

  /** Idempotent: a redelivered event changes nothing. The changed view is pushed before the event is acked. */
  async record(event: OrderEvent): Promise<void> {
    if (await this.apply(event)) await this.updates?.changed(event.quote_hash);
    if (event.type === 'deposited' && !event.removed) this.settler?.kick(); // settlement decides at once
  }

  /** Records the step (or its withdrawal), then the order's stored status; false when there is no such quote. */
  private async apply(event: OrderEvent): Promise<boolean> {
    const known = await this.applyStep(event);
    if (!known) return false;
    await this.restatus(event.quote_hash);
    return true;
  }

  /** `orders.status` (the status filter's column) as the recorded events (and a recorded relay failure, D18) make it, as the order view does. */
  private async restatus(quoteHash: string): Promise<void> {
    await this.db.$executeRaw`UPDATE orders SET status = COALESCE(
      (SELECT CASE WHEN bool_or(type = 'refunded') THEN 'refunded' WHEN bool_or(type = 'fulfilled') THEN 'fulfilled' ELSE 'deposited' END
       FROM order_events WHERE quote_hash = ${quoteHash} HAVING count(*) > 0), CASE WHEN failed_at IS NULL THEN 'quoted' ELSE 'failed' END)
      WHERE quote_hash = ${quoteHash}`;
  }

  /** The step on the order, which the first step of a quote makes (ensureOrder). */
  private async applyStep(event: OrderEvent): Promise<boolean> {
    const known = !event.removed ? await ensureOrder(this.db, event.quote_hash) : true;
    const quote = known
      ? await this.db.order.findUnique({
          where: { quoteHash: event.quote_hash },
          select: { srcChain: true, dstChain: true, routeType: true },
        })
      : null;
    if (!quote) {
      this.log.warn({ quote_hash: event.quote_hash, type: event.type }, 'order event for an unknown quote');
      return false;
    }
    if (event.removed) {
      // A reorg dropped the step: forget it (only the step it names), and the fulfilment time it made.
      const gone = await this.db.orderEvent.deleteMany({ where: { quoteHash: event.quote_hash, type: event.type, txHash: event.tx_hash } });
      if (gone.count > 0 && event.type !== 'refunded') {
        await this.db.fulfillmentSample.deleteMany({ where: { quoteHash: event.quote_hash } });
        void this.eta.refresh();
      }
      this.log.warn(
        { quote_hash: event.quote_hash, type: event.type, tx_hash: event.tx_hash, forgotten: gone.count },
        'order step withdrawn by a reorg',
      );
      return true;
    }
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
    if (event.type === 'refunded') return true;
    const both = await this.db.orderEvent.findMany({
      where: { quoteHash: event.quote_hash, type: { in: ['deposited', 'fulfilled'] } },
    });
    const deposited = both.find((e) => e.type === 'deposited');
    const fulfilled = both.find((e) => e.type === 'fulfilled');
    if (!deposited || !fulfilled) return true;
    const secs = Math.max(0, Math.round((fulfilled.occurredAt.getTime() - deposited.occurredAt.getTime()) / 1000));
    await this.db.fulfillmentSample.upsert({
      where: { quoteHash: event.quote_hash },
      create: { quoteHash: event.quote_hash, ...quote, secs, fulfilledAt: fulfilled.occurredAt },
      update: {},
    });
    void this.eta.refresh();
    return true;
  }
}
