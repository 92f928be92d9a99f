import { Inject, Injectable } from '@nestjs/common';
import { RpcError, type WebhookDelivery as WebhookDeliveryView } from '@xchain/contracts';
import { Clock } from '@xchain/service-kit';
import { decodeIdCursor, encodeIdCursor, pageSizeOf } from '../referrals/cursor';
import { WebhookSecretCipher } from './secret-cipher';
import { newWebhookSecret } from './signing';
import { deliveryJobId } from './webhook-queue';
import { WEBHOOK_OPTIONS, type WebhookOptions } from './webhook-options';
import { sealedColumns } from './webhook-secrets';
import { parseWebhookUrl } from './webhook-url';
import { type DeliveryRow, WebhooksRepository } from './webhooks.repository';

/** A partner's webhook endpoint and its delivery log, for that partner only. */
@Injectable()
export class WebhooksService {
  private readonly cipher: WebhookSecretCipher;

  constructor(
    @Inject(WebhooksRepository) private readonly repo: WebhooksRepository,
    @Inject(WEBHOOK_OPTIONS) private readonly opts: WebhookOptions,
    @Inject(Clock) private readonly clock: Clock,
  ) {
    this.cipher = new WebhookSecretCipher(opts.secretKeys);
  }

  /** Sets (or replaces) the endpoint with a fresh secret, returned here and never again (stored encrypted). */
  async set(partnerId: string, rawUrl: string) {
    const url = parseWebhookUrl(rawUrl, { allowHttpLocalhost: this.opts.allowHttpLocalhost });
    const secret = newWebhookSecret();
    const createdAt = this.clock.now();
    const sealed = sealedColumns(this.cipher, partnerId, secret);
    await this.repo.upsert(partnerId, { url, ...sealed, createdAt });
    return { url, secret, created_at: createdAt.toISOString() };
  }

  async get(partnerId: string) {
    const hook = await this.repo.find(partnerId);
    if (!hook) throw RpcError.notFound('no webhook is set', 'WEBHOOK_NOT_FOUND');
    return { url: hook.url, created_at: hook.createdAt.toISOString() };
  }

  /** No new deliveries, and the pending ones stop (they end failed); removing none is fine. */
  async remove(partnerId: string): Promise<Record<string, never>> {
    await this.repo.remove(partnerId);
    return {};
  }

  /** Newest first; `next_cursor` is empty on the last page. */
  async deliveries(partnerId: string, cursor: string | undefined, pageSize: number | undefined) {
    const size = pageSizeOf(pageSize);
    const before = cursor ? decodeIdCursor('d1', cursor) : undefined;
    const rows = await this.repo.deliveries(partnerId, before, size + 1);
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
