import { Inject, Injectable } from '@nestjs/common';
import {
  ORDER_UPDATES_STREAM_DEF,
  ORDER_UPDATE_CONSUMERS,
  OrderUpdateSchema,
  type OrderUpdate,
  type WebhookEvent,
} from '@xchain/contracts';
import { DurableConsumerProvider, type DurableConsumerOptions, type NatsConnection } from '@xchain/messaging';
import type { PrismaClient } from '@xchain/partner-service-db';
import { LOGGER, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { DB } from '../db.providers';
import { WebhookWorker } from './webhook-worker';

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
    @Inject(DB) private readonly db: PrismaClient,
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
    const hook = await this.db.webhook.findUnique({ where: { partnerId: update.partner_id }, select: { partnerId: true } });
    if (!hook) return;
    const [inserted] = await this.db.$queryRaw<{ id: bigint }[]>`
      INSERT INTO webhook_deliveries (partner_id, event_id, quote_hash, version, body, status, next_attempt_at)
      VALUES (${update.partner_id}, ${update.event_id}, ${update.quote_hash}, ${update.version}, ${webhookBody(update)}, 'pending', now())
      ON CONFLICT (partner_id, event_id) DO NOTHING
      RETURNING id`;
    // A redelivered update whose row exists: enqueue again only if it is still pending (a crash may
    // have come between the insert and the job); a job for it that exists already is a no-op.
    const row =
      inserted ??
      (await this.db.webhookDelivery.findUnique({
        where: { partnerId_eventId: { partnerId: update.partner_id, eventId: update.event_id } },
        select: { id: true, status: true },
      }));
    if (!row || ('status' in row && row.status !== 'pending')) return;
    await this.worker.enqueue(row.id);
  }
}
