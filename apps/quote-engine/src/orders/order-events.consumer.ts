import { Inject, Injectable } from '@nestjs/common';
import { ORDER_EVENTS_STREAM_DEF, ORDER_EVENT_CONSUMERS, OrderEventSchema, type OrderEvent } from '@xchain/contracts';
import { DependencyOutages, DurableConsumerProvider, type DurableConsumerOptions, type NatsConnection } from '@xchain/messaging';
import { LOGGER, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { DEPOSIT_LISTENER, type DepositListener } from '../config.tokens';
import { EtaService } from '../eta/eta.service';
import { OrderUpdates } from './order-updates';
import { OrderEventRepository } from './order-event.repository';

/**
 * Consumes order events from a JetStream stream with a durable consumer, so none is lost while
 * the quote-engine restarts. Each event is recorded once; a deposit and its fulfilment, in either
 * order, make one fulfilment-time sample.
 */
@Injectable()
export class OrderEventsConsumer extends DurableConsumerProvider<OrderEvent> {
  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(OrderEventRepository) private readonly events: OrderEventRepository,
    @Inject(EtaService) private readonly eta: EtaService,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(OrderUpdates) private readonly updates?: Pick<OrderUpdates, 'changed'>,
    @Inject(DEPOSIT_LISTENER) private readonly settler?: DepositListener,
    @Inject(DependencyOutages) private readonly outages?: DependencyOutages,
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
    await this.events.restatus(event.quote_hash);
    return true;
  }

  /** The step on the order, which the first step of a quote makes (ensureOrder). */
  private async applyStep(event: OrderEvent): Promise<boolean> {
    const known = !event.removed ? await this.events.ensureOrder(event.quote_hash) : true;
    const quote = known ? await this.events.routeOf(event.quote_hash) : null;
    if (!quote) {
      this.log.warn({ quote_hash: event.quote_hash, type: event.type }, 'order event for an unknown quote');
      return false;
    }
    if (event.removed) {
      // A reorg dropped the step: forget it (only the step it names), and the fulfilment time it made.
      const gone = await this.events.forgetStep(event.quote_hash, event.type, event.tx_hash);
      if (gone > 0 && event.type !== 'refunded') {
        await this.events.forgetSample(event.quote_hash);
        void this.eta.refresh();
      }
      this.log.warn(
        { quote_hash: event.quote_hash, type: event.type, tx_hash: event.tx_hash, forgotten: gone },
        'order step withdrawn by a reorg',
      );
      return true;
    }
    await this.events.recordStep(event);
    if (event.type === 'refunded') return true;
    const { deposited, fulfilled } = await this.events.depositAndFill(event.quote_hash);
    if (!deposited || !fulfilled) return true;
    const secs = Math.max(0, Math.round((fulfilled.getTime() - deposited.getTime()) / 1000));
    await this.events.recordSample(event.quote_hash, quote, secs, fulfilled);
    void this.eta.refresh();
    return true;
  }
}
