import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit, Optional } from '@nestjs/common';
import { GASLESS_EVENTS_STREAM_DEF, GASLESS_EVENT_CONSUMERS, GaslessEventSchema, type GaslessEvent } from '@xchain/contracts';
import { DependencyOutages, DurableConsumer, type NatsConnection } from '@xchain/messaging';
import { LOGGER, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { OrderUpdates } from './order-updates';

/**
 * The relayer's status changes (GASLESS_EVENTS_V1), through a durable consumer of the
 * quote-engine's own: each one changes the order view, which is pushed (D13). An event is acked
 * only once the view it changed has been pushed, so a restart misses none.
 */
@Injectable()
export class GaslessEventsConsumer implements OnModuleInit, OnApplicationShutdown {
  private readonly consumer: DurableConsumer<GaslessEvent>;

  constructor(
    @Inject(NATS) nc: NatsConnection,
    @Inject(OrderUpdates) updates: OrderUpdates,
    @Inject(LOGGER) log: Logger,
    @Optional() @Inject(DependencyOutages) outages?: DependencyOutages,
  ) {
    this.consumer = new DurableConsumer({
      nc,
      // The relayer creates this stream from the same definition, whichever starts first.
      stream: GASLESS_EVENTS_STREAM_DEF,
      durable: GASLESS_EVENT_CONSUMERS.orderUpdates,
      schema: GaslessEventSchema,
      handle: (event) => updates.changed(event.quote_hash),
      retryDelayMs: 1000,
      log,
      ...(outages ? { outages } : {}),
      label: 'gasless events',
    });
  }

  onModuleInit(): void {
    this.consumer.start();
  }

  onApplicationShutdown(): void {
    this.consumer.stop();
  }
}
