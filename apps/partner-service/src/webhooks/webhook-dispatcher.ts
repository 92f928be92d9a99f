import { WEBHOOK_EVENT_ID_HEADER, WEBHOOK_SIGNATURE_HEADER } from '@xchain/contracts';
import type { Clock } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { type RetryPolicy, nextAttemptAt } from './backoff';
import type { WebhookSecretCipher } from './secret-cipher';
import { signatureHeader } from './signing';
import { openSecret } from './webhook-secrets';
import type { SendResult, SendWebhook } from './webhook-sender';
import type { DeliveryOutcome, WebhooksRepository } from './webhooks.repository';

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
    private readonly repo: Pick<WebhooksRepository, 'claimDelivery' | 'deliveryState' | 'find' | 'finishDelivery'>,
    private readonly send: SendWebhook,
    private readonly opts: DispatcherOptions,
    private readonly log: Pick<Logger, 'info' | 'warn' | 'error'>,
    private readonly clock: Clock,
  ) {}

  async attempt(id: bigint): Promise<number | undefined> {
    const now = this.clock.nowMs();
    const claimed = await this.repo.claimDelivery(
      id,
      new Date(now),
      new Date(now + this.opts.timeoutMs + LEASE_SLACK_MS),
      new Date(now + EARLY_TOLERANCE_MS),
    );
    if (!claimed) {
      const row = await this.repo.deliveryState(id);
      // Delivered, failed or gone: this job has nothing left to do. Pending but not due (an early
      // job, or an attempt in flight elsewhere): come back when it is.
      if (row?.status !== 'pending' || !row.nextAttemptAt) return undefined;
      return Math.max(row.nextAttemptAt.getTime() - now, 0) + 1;
    }

    const hook = await this.repo.find(claimed.partner_id);
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
    const after = this.clock.nowMs();
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
  private async finish(id: bigint, attempts: number, data: DeliveryOutcome): Promise<void> {
    await this.repo.finishDelivery(id, attempts, data);
  }
}
