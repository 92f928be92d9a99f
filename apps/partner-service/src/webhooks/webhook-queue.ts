import type { Logger } from '@xchain/telemetry';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { bullmqConnection } from '@xchain/service-kit';

export const WEBHOOK_QUEUE_NAME = 'partner-webhooks';
/** The window decides when to stop (see backoff.ts); BullMQ's own count only has to be out of the way. */
const ATTEMPTS = 1_000_000;
const ENQUEUE_TIMEOUT_MS = 1000;

/** Thrown by a processor to have BullMQ try the job again after `delayMs`. */
export class RetryLater extends Error {
  constructor(readonly delayMs: number) {
    super(`retry in ${delayMs} ms`);
  }
}

/** What the worker does with one delivery; a number is the wait before it wants to run again. */
export type ProcessDelivery = (deliveryId: bigint) => Promise<number | undefined>;

/** The job id of a delivery: its public id (`whd_<n>`), so enqueuing it twice is a no-op. */
export const deliveryJobId = (id: bigint): string => `whd_${id}`;

/**
 * The BullMQ queue of webhook attempts. A job only says "try this delivery now"; the delivery's
 * row says whether that is still needed, so a lost job costs a delay (the sweeper enqueues it
 * again) and a duplicate one does nothing.
 */
/** A job's lock, renewed every half of it while its worker lives: only a dead process lets it lapse. */
const JOB_LOCK_MS = 15_000;
const STALLED_CHECK_MS = 5_000;

export class WebhookQueue {
  private readonly queue: Queue;
  private worker?: Worker;
  private readonly redis: Redis;

  constructor(
    private readonly opts: { redisUrl: string; prefix: string; concurrency: number },
    private readonly log: Logger,
  ) {
    this.queue = new Queue(WEBHOOK_QUEUE_NAME, {
      connection: bullmqConnection(opts.redisUrl),
      prefix: opts.prefix,
      defaultJobOptions: { attempts: ATTEMPTS, backoff: { type: 'delivery' }, removeOnComplete: true, removeOnFail: true },
    });
    this.queue.on('error', () => undefined); // Redis outages show in readiness; the sweeper recovers
    this.redis = new Redis(opts.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: true });
    this.redis.on('error', () => undefined);
  }

  start(process: ProcessDelivery): void {
    this.worker = new Worker(
      WEBHOOK_QUEUE_NAME,
      async (job) => {
        const wait = await process(BigInt((job.data as { delivery_id: string }).delivery_id));
        if (wait !== undefined) throw new RetryLater(wait);
      },
      {
        connection: bullmqConnection(this.opts.redisUrl),
        prefix: this.opts.prefix,
        concurrency: this.opts.concurrency,
        // A partner-service killed mid-attempt leaves its job active: it comes back once its lock
        // (renewed every half of it while the process lives) has lapsed, at the next stalled check.
        // BullMQ's 30 s defaults would hold a delivery up for about a minute after a crash.
        lockDuration: JOB_LOCK_MS,
        stalledInterval: STALLED_CHECK_MS,
        settings: {
          backoffStrategy: (attempts, _type, err) =>
            err instanceof RetryLater ? Math.max(err.delayMs, 0) : Math.min(1000 * 2 ** Math.min(attempts, 6), 60_000),
        },
      },
    );
    this.worker.on('error', () => undefined);
    this.worker.on('failed', (job, err) => {
      if (!(err instanceof RetryLater)) this.log.warn({ job: job?.id, err: err.message }, 'webhook job failed; it is retried');
    });
  }

  async enqueue(deliveryId: bigint): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.queue.add('deliver', { delivery_id: String(deliveryId) }, { jobId: deliveryJobId(deliveryId) }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`Redis did not take the job within ${ENQUEUE_TIMEOUT_MS} ms`)), ENQUEUE_TIMEOUT_MS);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async ping(): Promise<boolean> {
    return (await this.redis.ping()) === 'PONG';
  }

  async close(): Promise<void> {
    await this.worker?.close().catch(() => undefined);
    await this.queue.close().catch(() => undefined);
    this.redis.disconnect();
  }
}
