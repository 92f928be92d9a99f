import { Inject, Injectable } from '@nestjs/common';
import type { PrismaClient } from '@xchain/partner-service-db';
import { DB } from '../db.providers';
import type { sealedColumns } from './webhook-secrets';

export type DeliveryRow = Awaited<ReturnType<PrismaClient['webhookDelivery']['findFirstOrThrow']>>;
export type WebhookRow = Awaited<ReturnType<PrismaClient['webhook']['findFirstOrThrow']>>;

/** Partners' webhook endpoints (their secrets sealed) and the delivery log. */
@Injectable()
export class WebhooksRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  /** Sets or replaces the partner's endpoint. */
  async upsert(partnerId: string, row: { url: string; createdAt: Date } & ReturnType<typeof sealedColumns>): Promise<void> {
    await this.db.webhook.upsert({ where: { partnerId }, create: { partnerId, ...row }, update: row });
  }

  find(partnerId: string): Promise<WebhookRow | null> {
    return this.db.webhook.findUnique({ where: { partnerId } });
  }

  /** In one transaction: the endpoint goes, and its pending deliveries end failed. */
  async remove(partnerId: string): Promise<void> {
    await this.db.$transaction([
      this.db.webhook.deleteMany({ where: { partnerId } }),
      this.db.webhookDelivery.updateMany({
        where: { partnerId, status: 'pending' },
        data: { status: 'failed', lastError: 'the webhook was removed', nextAttemptAt: null },
      }),
    ]);
  }

  /** Deliveries older than `before`, newest first. */
  deliveries(partnerId: string, before: bigint | undefined, take: number): Promise<DeliveryRow[]> {
    return this.db.webhookDelivery.findMany({
      where: { partnerId, ...(before !== undefined ? { id: { lt: before } } : {}) },
      orderBy: { id: 'desc' },
      take,
    });
  }
}
