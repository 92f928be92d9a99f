import { Inject, Injectable } from '@nestjs/common';
import {
  ORDER_UPDATES_STREAM_DEF,
  ORDER_UPDATE_CONSUMERS,
  OrderUpdateSchema,
  type OrderUpdate,
  type WebhookEvent,
} from '@xchain/contracts';
import { DurableConsumerProvider, type DurableConsumerOptions, type NatsConnection } from '@xchain/messaging';
import { LOGGER, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { WebhookWorker } from './webhook-worker';
import { WebhooksRepository } from './webhooks.repository';

/** The body every attempt of a delivery sends, byte for byte (the signature covers it). */
export function webhookBody(update: OrderUpdate): string {
  const event: WebhookEvent = {
    id: update.event_id,
    type: 'order.updated',
    created_at: update.occurred_at,
    version: update.version,
    data: update.order,
  };
  return JSON.stringify(event);
}

/**
 * Order updates (ORDER_UPDATES_V1) through one durable consumer per partner-service deployment:
 * an update of an order quoted with a partner's key, for a partner that has a webhook, becomes one
 * delivery row (unique per partner and event, so a redelivered message adds nothing) and a job.
 * If Redis does not take the job, the row is still there and the sweeper enqueues it later.
 */
@Injectable()
export class OrderUpdatesConsumer extends DurableConsumerProvider<OrderUpdate> {
  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(WebhooksRepository) private readonly repo: WebhooksRepository,
    @Inject(WebhookWorker) private readonly worker: WebhookWorker,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    super();
  }

  protected consumerOptions(): DurableConsumerOptions<OrderUpdate> {
    return {
      nc: this.nc,
      stream: ORDER_UPDATES_STREAM_DEF,
      durable: ORDER_UPDATE_CONSUMERS.webhooks, // the one durable name its NATS user may use (D14)
      schema: OrderUpdateSchema,
      handle: (update) => this.record(update),
      retryDelayMs: 2000,
      log: this.log,
      label: 'webhook deliveries',
    };
  }

  /** Exposed for tests: what one update does. */
  async record(update: OrderUpdate): Promise<void> {
    if (!update.partner_id) return;
    if (!(await this.repo.exists(update.partner_id))) return;
    const inserted = await this.repo.insertDelivery({
      partnerId: update.partner_id,
      eventId: update.event_id,
      quoteHash: update.quote_hash,
      version: update.version,
      body: webhookBody(update),
    });
    // A redelivered update whose row exists: enqueue again only if it is still pending (a crash may
    // have come between the insert and the job); a job for it that exists already is a no-op.
    const row = inserted ?? (await this.repo.deliveryOfEvent(update.partner_id, update.event_id));
    if (!row || ('status' in row && row.status !== 'pending')) return;
    await this.worker.enqueue(row.id);
  }
}
