import { Inject, Injectable } from '@nestjs/common';
import type { Prisma, PrismaClient } from '@xchain/partner-service-db';
import { DB } from '../db.providers';
import type { StoredSecret, sealedColumns } from './webhook-secrets';

export type DeliveryRow = Awaited<ReturnType<PrismaClient['webhookDelivery']['findFirstOrThrow']>>;
export type WebhookRow = Awaited<ReturnType<PrismaClient['webhook']['findFirstOrThrow']>>;

/** A delivery an attempt claimed: what it sends, and how many attempts it is. */
export interface ClaimedDelivery {
  partner_id: string;
  event_id: string;
  body: string;
  attempts: number;
  first_attempt_at: Date;
}

/** An attempt's outcome, as written to its delivery row. */
export interface DeliveryOutcome {
  status: 'pending' | 'delivered' | 'failed';
  lastStatusCode?: number | null;
  lastError?: string | null;
  nextAttemptAt: Date | null;
  deliveredAt?: Date;
}

/** A new delivery of an order update to a partner's endpoint. */
export interface NewDelivery {
  partnerId: string;
  eventId: string;
  quoteHash: string;
  version: number;
  body: string;
}

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

  /** Whether the partner has an endpoint. */
  async exists(partnerId: string): Promise<boolean> {
    return (await this.db.webhook.findUnique({ where: { partnerId }, select: { partnerId: true } })) !== null;
  }

  /**
   * Claims a delivery for one attempt, in one UPDATE: only a pending one due by `dueBy`, which then
   * counts one more attempt and waits until `leaseUntil` (nobody else attempts it meanwhile).
   * Undefined when it is not (delivered, failed, gone, not due or being attempted elsewhere).
   */
  async claimDelivery(id: bigint, now: Date, leaseUntil: Date, dueBy: Date): Promise<ClaimedDelivery | undefined> {
    const [claimed] = await this.db.$queryRaw<ClaimedDelivery[]>`
      UPDATE webhook_deliveries
         SET attempts = attempts + 1,
             next_attempt_at = ${leaseUntil},
             first_attempt_at = COALESCE(first_attempt_at, ${now})
       WHERE id = ${id} AND status = 'pending' AND next_attempt_at <= ${dueBy}
      RETURNING partner_id, event_id, body, attempts, first_attempt_at`;
    return claimed;
  }

  /** A delivery's status and next attempt time; null when it is gone. */
  deliveryState(id: bigint): Promise<{ status: string; nextAttemptAt: Date | null } | null> {
    return this.db.webhookDelivery.findUnique({ where: { id }, select: { status: true, nextAttemptAt: true } });
  }

  /** Records an attempt's outcome, only if the row is still the one the attempt (its `attempts`th) claimed. */
  async finishDelivery(id: bigint, attempts: number, data: DeliveryOutcome): Promise<void> {
    await this.db.webhookDelivery.updateMany({ where: { id, status: 'pending', attempts }, data });
  }

  /** Inserts a pending delivery due now; undefined when the partner has one for this event already. */
  async insertDelivery(d: NewDelivery): Promise<{ id: bigint } | undefined> {
    const [inserted] = await this.db.$queryRaw<{ id: bigint }[]>`
      INSERT INTO webhook_deliveries (partner_id, event_id, quote_hash, version, body, status, next_attempt_at)
      VALUES (${d.partnerId}, ${d.eventId}, ${d.quoteHash}, ${d.version}, ${d.body}, 'pending', now())
      ON CONFLICT (partner_id, event_id) DO NOTHING
      RETURNING id`;
    return inserted;
  }

  /** The partner's delivery of an event, its id and status. */
  deliveryOfEvent(partnerId: string, eventId: string): Promise<{ id: bigint; status: string } | null> {
    return this.db.webhookDelivery.findUnique({
      where: { partnerId_eventId: { partnerId, eventId } },
      select: { id: true, status: true },
    });
  }

  /** Pending deliveries due before `before`, the most overdue first. */
  overdueDeliveries(before: Date, take: number): Promise<{ id: bigint }[]> {
    return this.db.webhookDelivery.findMany({
      where: { status: 'pending', nextAttemptAt: { lte: before } },
      select: { id: true },
      orderBy: { nextAttemptAt: 'asc' },
      take,
    });
  }

  /** The secrets stored in clear, or sealed under another key than `currentKeyId`. */
  secretsToUpgrade(currentKeyId: string): Promise<StoredSecret[]> {
    return this.db.webhook.findMany({
      where: { OR: [{ legacySecret: { not: '' } }, { secretKeyId: { not: currentKeyId } }] },
      select: { partnerId: true, legacySecret: true, secretKeyId: true, secretIv: true, secretTag: true, secretCiphertext: true },
    });
  }

  /**
   * Writes a secret's new sealed columns only if the row still holds what `row` read (the same clear
   * secret, or the same key and ciphertext); false when it was replaced or upgraded meanwhile.
   */
  async replaceSecretIfUnchanged(row: StoredSecret, sealed: ReturnType<typeof sealedColumns>): Promise<boolean> {
    const unchanged: Prisma.WebhookWhereInput =
      row.legacySecret !== ''
        ? { legacySecret: row.legacySecret }
        : { legacySecret: '', secretKeyId: row.secretKeyId, secretCiphertext: { equals: new Uint8Array(row.secretCiphertext!) } };
    const { count } = await this.db.webhook.updateMany({ where: { partnerId: row.partnerId, ...unchanged }, data: sealed });
    return count > 0;
  }
}
