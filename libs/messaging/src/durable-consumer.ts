import type { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { AckPolicy, jetstream, jetstreamManager, type ConsumerMessages } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { StreamDefinition } from '@xchain/contracts';
import type { z } from 'zod';
import { DependencyOutage, type DependencyOutages } from './dependency-outage';
import { busMetrics } from './metrics';
import { Backoff } from './retry';
import { streamReplicasOf } from './connection';
import { ensureStream } from './streams';

export interface DurableConsumerOptions<T> {
  nc: NatsConnection;
  /** The stream's definition (contracts): created when missing; an existing one that differs is reported and used as it is. */
  stream: StreamDefinition;
  /** Durable name: the server remembers what this consumer acknowledged across restarts. */
  durable: string;
  filterSubject?: string;
  schema: z.ZodType<T>;
  /**
   * Resolves to acknowledge, or to 'drop' to discard for good; a throw redelivers, without limit:
   * first after `retryDelayMs`, then after twice as long each time up to `maxRetryDelayMs`.
   */
  handle: (message: T, subject: string) => Promise<void | 'drop'>;
  retryDelayMs: number;
  /** The longest wait between two deliveries of a message whose handling fails (default 30 s). */
  maxRetryDelayMs?: number;
  log: { warn: (fields: object, msg: string) => void; info: (fields: object, msg: string) => void };
  /** Names the consumer in its log lines. */
  label: string;
  /**
   * The process's dependency outages: a handling failure that says a dependency is unreachable is
   * counted there (one warning per outage, whoever noticed it) instead of logged here.
   */
  outages?: Pick<DependencyOutages, 'failed'>;
}

const decoder = new TextDecoder();

/**
 * A JetStream durable consumer that keeps going: it (re)creates its stream and consumer, validates
 * each message, and after any failure of the connection or the server retries with a backoff
 * (250 ms doubling to 5 s). Malformed messages are discarded, never retried forever. A message
 * whose handling fails is delivered again until it succeeds (the server never gives up on it:
 * `max_deliver` -1), less often the longer it fails: an outage of a dependency as long as it lasts
 * delays what it carries, never drops it.
 */
export class DurableConsumer<T> {
  private messages?: ConsumerMessages;
  private stopped = false;
  private readonly handled = busMetrics().consumerMessages;
  /** Handling failures are one warning when they start and one line when a message is handled again, not one per redelivery. */
  private readonly failing: DependencyOutage;

  constructor(private readonly opts: DurableConsumerOptions<T>) {
    this.failing = new DependencyOutage(opts.log, opts.label, {
      messages: { down: `${opts.label}: handling failed; redelivering until it succeeds`, back: `${opts.label}: handling succeeds again` },
    });
  }

  start(): void {
    void this.consumeForever();
  }

  stop(): void {
    this.stopped = true;
    void this.messages?.close();
  }

  private async consumeForever(): Promise<void> {
    const { nc, stream, durable, log, label } = this.opts;
    const backoff = new Backoff({ initialMs: 250, maxMs: 5000 });
    while (!this.stopped) {
      try {
        const jsm = await jetstreamManager(nc);
        await ensureStream(jsm, stream, log, { replicas: streamReplicasOf(nc) });
        await jsm.consumers.add(stream.name, {
          durable_name: durable,
          ack_policy: AckPolicy.Explicit,
          // Unlimited; a durable made with a limit by an older version is updated to this.
          max_deliver: -1,
          ...(this.opts.filterSubject ? { filter_subject: this.opts.filterSubject } : {}),
        });
        const consumer = await jetstream(nc).consumers.get(stream.name, durable);
        this.messages = await consumer.consume();
        backoff.reset();
        for await (const m of this.messages) {
          const parsed = this.opts.schema.safeParse(parseJson(decoder.decode(m.data)));
          if (!parsed.success) {
            log.warn({ subject: m.subject }, `${label}: dropped a malformed message`);
            this.handled.inc({ consumer: durable, outcome: 'malformed' });
            m.term();
            continue;
          }
          try {
            const outcome = await this.opts.handle(parsed.data, m.subject);
            if (outcome === 'drop') m.term();
            else m.ack();
            this.handled.inc({ consumer: durable, outcome: outcome === 'drop' ? 'drop' : 'ack' });
            this.failing.succeeded();
          } catch (err) {
            this.handled.inc({ consumer: durable, outcome: 'retry' });
            if (!this.opts.outages?.failed(err))
              this.failing.failed(err, {
                subject: m.subject,
                err: err instanceof Error ? err.message.split('\n')[0]!.slice(0, 300) : String(err),
              });
            m.nak(retryDelay(m.info.deliveryCount, this.opts.retryDelayMs, this.opts.maxRetryDelayMs ?? 30_000));
          }
        }
      } catch (err) {
        if (!this.stopped) log.warn({ err: err instanceof Error ? err.message : String(err) }, `${label}: consumer failed; retrying`);
      }
      if (this.stopped) return;
      await new Promise((r) => setTimeout(r, backoff.next()));
    }
  }
}

/** The wait before delivery `delivered + 1`: `firstMs` doubled per failed delivery, at most `maxMs`. */
export function retryDelay(delivered: number, firstMs: number, maxMs: number): number {
  const doublings = Math.min(Math.max(delivered - 1, 0), 20);
  return Math.min(firstMs * 2 ** doublings, maxMs);
}

/** JSON.parse that answers undefined for malformed text (the schema then rejects it). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A Nest provider that runs one durable consumer for the application's lifetime: made and started
 * as its module initialises, stopped at shutdown. A subclass says what it consumes and how it
 * handles each message (`consumerOptions`).
 */
export abstract class DurableConsumerProvider<T> implements OnModuleInit, OnApplicationShutdown {
  private consumer?: DurableConsumer<T>;

  protected abstract consumerOptions(): DurableConsumerOptions<T>;

  onModuleInit(): void {
    this.consumer ??= new DurableConsumer(this.consumerOptions());
    this.consumer.start();
  }

  onApplicationShutdown(): void {
    this.consumer?.stop();
  }
}
