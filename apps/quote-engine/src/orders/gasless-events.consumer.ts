import { Inject, Injectable, Optional } from '@nestjs/common';
import { GASLESS_EVENTS_STREAM_DEF, GASLESS_EVENT_CONSUMERS, GaslessEventSchema, type GaslessEvent } from '@xchain/contracts';
import { DependencyOutages, DurableConsumerProvider, type DurableConsumerOptions, type NatsConnection } from '@xchain/messaging';
import { LOGGER, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { OrderUpdates } from './order-updates';

/**
 * The relayer's status changes (GASLESS_EVENTS_V1), through a durable consumer of the
 * quote-engine's own: each one changes the order view, which is pushed (D13). An event is acked
 * only once the view it changed has been pushed, so a restart misses none.
 */
@Injectable()
export class GaslessEventsConsumer extends DurableConsumerProvider<GaslessEvent> {
  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(OrderUpdates) private readonly updates: OrderUpdates,
    @Inject(LOGGER) private readonly log: Logger,
    @Optional() @Inject(DependencyOutages) private readonly outages?: DependencyOutages,
  ) {
    super();
  }

  protected consumerOptions(): DurableConsumerOptions<GaslessEvent> {
    return {
      nc: this.nc,
      // The relayer creates this stream from the same definition, whichever starts first.
      stream: GASLESS_EVENTS_STREAM_DEF,
      durable: GASLESS_EVENT_CONSUMERS.orderUpdates,
      schema: GaslessEventSchema,
      handle: (event) => this.updates.changed(event.quote_hash),
      retryDelayMs: 1000,
      log: this.log,
      ...(this.outages ? { outages: this.outages } : {}),
      label: 'gasless events',
    };
  }
}
