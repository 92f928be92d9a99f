import { WEBHOOK_EVENT_ID_HEADER, WEBHOOK_SIGNATURE_HEADER } from '@xchain/contracts';
import type { PrismaClient } from '@xchain/partner-service-db';
import type { Logger } from '@xchain/telemetry';
import { type RetryPolicy, nextAttemptAt } from './backoff';
import type { WebhookSecretCipher } from './secret-cipher';
import { signatureHeader } from './signing';
import { openSecret } from './webhook-secrets';
import type { SendResult, SendWebhook } from './webhook-sender';

/** An attempt in flight holds its delivery this much longer than its timeout, so nobody else starts one. */
const LEASE_SLACK_MS = 30_000;
/** A job may fire a little before its row is due (clocks, rounding): still on time. */
const EARLY_TOLERANCE_MS = 1000;
const MAX_ERROR_CHARS = 500;

export interface DispatcherOptions {
  timeoutMs: number;
  retry: RetryPolicy;
  /** Opens the stored secrets. */
  cipher: WebhookSecretCipher;
}

/**
 * Makes one attempt of one delivery, with the database as the judge: the attempt first claims the
 * row (pending, due, not being attempted elsewhere) in one UPDATE, so a duplicate or stale job, a
 * second replica or a restarted worker never sends a delivered event again nor two attempts at
 * once. Returns the wait before the next attempt, or undefined when nothing more is to be done.
 */
export class WebhookDispatcher {
  constructor(
    private readonly db: PrismaClient,
    private readonly send: SendWebhook,
    private readonly opts: DispatcherOptions,
    private readonly log: Pick<Logger, 'info' | 'warn' | 'error'>,
    private readonly clock: () => number = Date.now,
  ) {}

  async attempt(id: bigint): Promise<number | undefined> {
    const now = this.clock();
    const [claimed] = await this.db.$queryRaw<
      { partner_id: string; event_id: string; body: string; attempts: number; first_attempt_at: Date }[]
    >`
      UPDATE webhook_deliveries
         SET attempts = attempts + 1,
             next_attempt_at = ${new Date(now + this.opts.timeoutMs + LEASE_SLACK_MS)},
             first_attempt_at = COALESCE(first_attempt_at, ${new Date(now)})
       WHERE id = ${id} AND status = 'pending' AND next_attempt_at <= ${new Date(now + EARLY_TOLERANCE_MS)}
      RETURNING partner_id, event_id, body, attempts, first_attempt_at`;
    if (!claimed) {
      const row = await this.db.webhookDelivery.findUnique({ where: { id }, select: { status: true, nextAttemptAt: true } });
      // Delivered, failed or gone: this job has nothing left to do. Pending but not due (an early
      // job, or an attempt in flight elsewhere): come back when it is.
      if (row?.status !== 'pending' || !row.nextAttemptAt) return undefined;
      return Math.max(row.nextAttemptAt.getTime() - now, 0) + 1;
    }

    const hook = await this.db.webhook.findUnique({ where: { partnerId: claimed.partner_id } });
    if (!hook) {
      await this.finish(id, claimed.attempts, { status: 'failed', lastError: 'the webhook was removed', nextAttemptAt: null });
      return undefined;
    }
    let secret: string | undefined;
    let unreadable: string | undefined;
    try {
      secret = openSecret(this.opts.cipher, hook);
    } catch (err) {
      // Not sent: a key missing here may be configured on another replica (a key rotation under
      // way), so the attempt counts as failed and is retried like any other.
      unreadable = `not sent: ${err instanceof Error ? err.message : String(err)}`;
      this.log.error({ delivery: String(id), partner_id: claimed.partner_id, err: unreadable }, 'webhook secret unreadable');
    }
    const result: SendResult =
      secret === undefined
        ? { ok: false, error: unreadable }
        : await this.send(hook.url, claimed.body, {
            'content-type': 'application/json',
            [WEBHOOK_EVENT_ID_HEADER]: claimed.event_id,
            [WEBHOOK_SIGNATURE_HEADER]: signatureHeader(secret, claimed.body, now / 1000),
          });
    const after = this.clock();
    const outcome = { lastStatusCode: result.statusCode ?? null, lastError: result.error ? result.error.slice(0, MAX_ERROR_CHARS) : null };
    if (result.ok) {
      await this.finish(id, claimed.attempts, { ...outcome, status: 'delivered', deliveredAt: new Date(after), nextAttemptAt: null });
      this.log.info({ delivery: String(id), event_id: claimed.event_id, attempts: claimed.attempts }, 'webhook delivered');
      return undefined;
    }
    const next = nextAttemptAt(claimed.attempts, claimed.first_attempt_at, new Date(after), this.opts.retry);
    await this.finish(id, claimed.attempts, { ...outcome, status: next ? 'pending' : 'failed', nextAttemptAt: next ?? null });
    this.log.warn(
      {
        delivery: String(id),
        event_id: claimed.event_id,
        attempts: claimed.attempts,
        status_code: result.statusCode,
        error: outcome.lastError,
        next_attempt_at: next?.toISOString(),
      },
      next ? 'webhook attempt failed; retrying' : 'webhook delivery failed for good',
    );
    return next ? next.getTime() - after : undefined;
  }

  /** Records an attempt's outcome, only if the row is still the one this attempt claimed. */
  private async finish(
    id: bigint,
    attempts: number,
    data: {
      status: 'pending' | 'delivered' | 'failed';
      lastStatusCode?: number | null;
      lastError?: string | null;
      nextAttemptAt: Date | null;
      deliveredAt?: Date;
    },
  ): Promise<void> {
    await this.db.webhookDelivery.updateMany({ where: { id, status: 'pending', attempts }, data });
  }
}
