import { Inject, Injectable } from '@nestjs/common';
import { GASLESS_EVENTS_STREAM_DEF, GASLESS_EVENT_CONSUMERS, GaslessEventSchema, type GaslessEvent } from '@xchain/contracts';
import { DependencyOutages, DurableConsumerProvider, type DurableConsumerOptions, type NatsConnection } from '@xchain/messaging';
import { LOGGER, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { OrderUpdates } from './order-updates';
import { failureReasonOf } from './order-view.service';
import { OrderEventRepository } from './order-event.repository';

/**
 * The relayer's status changes (GASLESS_EVENTS_V1), through a durable consumer of the
 * quote-engine's own: each one changes the order view, which is pushed (D13). A `failed` one is
 * recorded on the quote first, once: the order view's terminal `failed` with its reason (D18). An
 * event is acked only once the view it changed has been pushed, so a restart misses none.
 */
@Injectable()
export class GaslessEventsConsumer extends DurableConsumerProvider<GaslessEvent> {
  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(OrderUpdates) private readonly updates: OrderUpdates,
    @Inject(OrderEventRepository) private readonly events: OrderEventRepository,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(DependencyOutages) private readonly outages?: DependencyOutages,
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
      handle: (event) => this.handle(event),
      retryDelayMs: 1000,
      log: this.log,
      ...(this.outages ? { outages: this.outages } : {}),
      label: 'gasless events',
    };
  }

  /** Idempotent: a redelivered `failed` records nothing new, and an unchanged view is not pushed again. */
  async handle(event: GaslessEvent): Promise<void> {
    // The relayer took the quote's gasless submission: from now on it is an order (issue 45).
    await this.events.ensureOrder(event.quote_hash);
    if (event.status === 'failed') await this.recordFailure(event);
    await this.updates.changed(event.quote_hash);
  }

  /**
   * The first failure of a quote's relay stands (the relayer never leaves `failed`); `orders.status`
   * (the list filter's column) becomes `failed` unless a step was already recorded.
   */
  private async recordFailure(event: GaslessEvent): Promise<void> {
    const message = event.error ?? '';
    const recorded = await this.events.recordRelayFailure(event.quote_hash, failureReasonOf(event.error), message, new Date(event.at));
    if (recorded) this.log.info({ quote_hash: event.quote_hash, error: message }, 'gasless relay failed for good: the order is failed');
  }
}
