import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock, HealthRegistry, LOGGER, Periodic } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { AddressGuard } from './address-guard';
import { WebhookSecretCipher } from './secret-cipher';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WEBHOOK_OPTIONS, type WebhookOptions } from './webhook-options';
import { WebhookQueue } from './webhook-queue';
import { upgradeStoredSecrets } from './webhook-secrets';
import { httpSender } from './webhook-sender';
import { WebhooksRepository } from './webhooks.repository';

/** Pending deliveries found by one sweep, at most. */
const SWEEP_BATCH = 500;

/**
 * Runs the deliveries: the BullMQ worker that attempts them, and a sweep that enqueues again every
 * pending delivery overdue by more than a grace period (its job was lost: Redis flushed, or the
 * service died between writing the row and enqueueing). Readiness reports Redis without failing
 * on it: webhooks wait for Redis, the partner API does not. Each sweep, the first at start, also
 * encrypts any secret still stored in clear or under an older key (upgradeStoredSecrets).
 */
@Injectable()
export class WebhookWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly queue: WebhookQueue;
  private readonly dispatcher: WebhookDispatcher;
  private readonly cipher: WebhookSecretCipher;
  /** Secrets this service cannot open, as last reported (logged again only when the set changes). */
  private unreadableReported = '';
  private readonly sweeps: Periodic;

  constructor(
    @Inject(WebhooksRepository) private readonly repo: WebhooksRepository,
    @Inject(WEBHOOK_OPTIONS) private readonly opts: WebhookOptions,
    @Inject(HealthRegistry) health: HealthRegistry,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(Clock) private readonly clock: Clock,
  ) {
    this.queue = new WebhookQueue({ redisUrl: opts.redisUrl, prefix: opts.queuePrefix, concurrency: opts.concurrency }, log);
    const sender = httpSender(new AddressGuard(opts.allowHttpLocalhost), opts.timeoutMs);
    this.cipher = new WebhookSecretCipher(opts.secretKeys);
    this.dispatcher = new WebhookDispatcher(
      repo,
      sender,
      { timeoutMs: opts.timeoutMs, retry: opts.retry, cipher: this.cipher },
      log,
      clock,
    );
    health.register('webhook_queue', async () => {
      const ok = await this.queue.ping().catch(() => false);
      return { ok: true, detail: ok ? 'redis reachable' : 'redis unreachable: deliveries wait' };
    });
    this.sweeps = new Periodic(
      () => this.sweepPass(),
      opts.sweepMs,
      (err) => this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'webhook sweep failed'),
      { firstAfterMs: 0, unref: true },
    );
  }

  onApplicationBootstrap(): void {
    this.queue.start((id) => this.dispatcher.attempt(id));
    this.sweeps.start();
  }

  async onApplicationShutdown(): Promise<void> {
    void this.sweeps.stop();
    await this.queue.close();
  }

  /** Enqueues a delivery's next attempt; a failure is logged, and the sweep makes up for it. */
  async enqueue(deliveryId: bigint): Promise<void> {
    try {
      await this.queue.enqueue(deliveryId);
    } catch (err) {
      this.log.warn(
        { delivery: String(deliveryId), err: err instanceof Error ? err.message : String(err) },
        'webhook job not enqueued; the sweep will',
      );
    }
  }

  /** Exposed for tests: one sweep; resolves with how many deliveries it enqueued. */
  async sweep(): Promise<number> {
    const grace = Math.max(5000, this.opts.timeoutMs);
    const overdue = await this.repo.overdueDeliveries(new Date(this.clock.nowMs() - grace), SWEEP_BATCH);
    for (const d of overdue) await this.queue.enqueue(d.id);
    return overdue.length;
  }

  /** Exposed for tests: one pass of upgradeStoredSecrets, logged when it changed or found something. */
  async upgradeSecrets(): Promise<void> {
    const r = await upgradeStoredSecrets(this.repo, this.cipher);
    if (r.encrypted + r.rekeyed > 0)
      this.log.info(
        { encrypted: r.encrypted, rekeyed: r.rekeyed, key_id: this.cipher.keyId },
        'webhook secrets encrypted under the current key',
      );
    const unreadable = r.unreadable.map((u) => `${u.partnerId}:${u.keyId}`).join(',');
    if (unreadable !== this.unreadableReported && r.unreadable.length > 0) {
      const keyIds = [...new Set(r.unreadable.map((u) => u.keyId))];
      this.log.error(
        { webhooks: r.unreadable.length, key_ids: keyIds, key_id: this.cipher.keyId },
        'webhook secrets under keys this service does not have (WEBHOOK_SECRET_KEY, WEBHOOK_SECRET_KEYS_OLD): their deliveries fail until the key is configured',
      );
    }
    this.unreadableReported = unreadable;
  }

  /** One sweep pass: secrets first (a failure there does not keep overdue deliveries waiting), then the sweep. */
  private async sweepPass(): Promise<void> {
    await this.upgradeSecrets().catch((err: unknown) =>
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'webhook secret upgrade failed; next sweep retries'),
    );
    const n = await this.sweep();
    if (n > 0) this.log.info({ enqueued: n }, 'webhook sweep enqueued overdue deliveries');
  }
}
