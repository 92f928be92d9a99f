import { Inject, Injectable } from '@nestjs/common';
import { RpcError, type WebhookDelivery as WebhookDeliveryView } from '@xchain/contracts';
import type { PrismaClient } from '@xchain/partner-service-db';
import { DB } from '../db.providers';
import { decodeIdCursor, encodeIdCursor, pageSizeOf } from '../referrals/cursor';
import { WebhookSecretCipher } from './secret-cipher';
import { newWebhookSecret } from './signing';
import { deliveryJobId } from './webhook-queue';
import { WEBHOOK_OPTIONS, type WebhookOptions } from './webhook-options';
import { sealedColumns } from './webhook-secrets';
import { parseWebhookUrl } from './webhook-url';

type DeliveryRow = Awaited<ReturnType<PrismaClient['webhookDelivery']['findFirstOrThrow']>>;

/** A partner's webhook endpoint and its delivery log, for that partner only. */
@Injectable()
export class WebhooksService {
  private readonly cipher: WebhookSecretCipher;

  constructor(
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(WEBHOOK_OPTIONS) private readonly opts: WebhookOptions,
  ) {
    this.cipher = new WebhookSecretCipher(opts.secretKeys);
  }

  /** Sets (or replaces) the endpoint with a fresh secret, returned here and never again (stored encrypted). */
  async set(partnerId: string, rawUrl: string) {
    const url = parseWebhookUrl(rawUrl, { allowHttpLocalhost: this.opts.allowHttpLocalhost });
    const secret = newWebhookSecret();
    const createdAt = new Date();
    const sealed = sealedColumns(this.cipher, partnerId, secret);
    await this.db.webhook.upsert({
      where: { partnerId },
      create: { partnerId, url, ...sealed, createdAt },
      update: { url, ...sealed, createdAt },
    });
    return { url, secret, created_at: createdAt.toISOString() };
  }

  async get(partnerId: string) {
    const hook = await this.db.webhook.findUnique({ where: { partnerId } });
    if (!hook) throw RpcError.notFound('no webhook is set', 'WEBHOOK_NOT_FOUND');
    return { url: hook.url, created_at: hook.createdAt.toISOString() };
  }

  /** No new deliveries, and the pending ones stop (they end failed); removing none is fine. */
  async remove(partnerId: string): Promise<Record<string, never>> {
    await this.db.$transaction([
      this.db.webhook.deleteMany({ where: { partnerId } }),
      this.db.webhookDelivery.updateMany({
        where: { partnerId, status: 'pending' },
        data: { status: 'failed', lastError: 'the webhook was removed', nextAttemptAt: null },
      }),
    ]);
    return {};
  }

  /** Newest first; `next_cursor` is empty on the last page. */
  async deliveries(partnerId: string, cursor: string | undefined, pageSize: number | undefined) {
    const size = pageSizeOf(pageSize);
    const before = cursor ? decodeIdCursor('d1', cursor) : undefined;
    const rows = await this.db.webhookDelivery.findMany({
      where: { partnerId, ...(before !== undefined ? { id: { lt: before } } : {}) },
      orderBy: { id: 'desc' },
      take: size + 1,
    });
    const page = rows.slice(0, size);
    const last = page[page.length - 1];
    return { deliveries: page.map(deliveryView), next_cursor: rows.length > size && last ? encodeIdCursor('d1', last.id) : '' };
  }
}

export function deliveryView(d: DeliveryRow): WebhookDeliveryView {
  return {
    id: deliveryJobId(d.id),
    event_id: d.eventId,
    quote_hash: d.quoteHash,
    version: d.version,
    status: d.status as WebhookDeliveryView['status'],
    attempts: d.attempts,
    ...(d.lastStatusCode !== null ? { last_status_code: d.lastStatusCode } : {}),
    ...(d.lastError !== null ? { last_error: d.lastError } : {}),
    ...(d.nextAttemptAt !== null && d.status === 'pending' ? { next_attempt_at: d.nextAttemptAt.toISOString() } : {}),
    created_at: d.createdAt.toISOString(),
    ...(d.deliveredAt !== null ? { delivered_at: d.deliveredAt.toISOString() } : {}),
  };
}
