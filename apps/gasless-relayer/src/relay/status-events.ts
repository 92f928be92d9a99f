import { GASLESS_EVENTS_STREAM_DEF, type GaslessEvent, type GaslessOrderView, gaslessEventSubject } from '@xchain/contracts';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Backoff, ensureStream, streamReplicasOf, type NatsConnection } from '@xchain/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { Clock, LOGGER, NATS, SystemClock, token } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';

/**
 * How long an event that cannot be published is tried again: the outage of a NATS member and the
 * election of a stream's new leader take seconds. Below the stream's duplicate window (2 minutes),
 * so a publish that was stored but whose acknowledgement was lost is dropped by the server when
 * tried again, never kept twice.
 */
export const STATUS_EVENT_RETRY_MS = 60_000;
/** How long the service tries an event again: STATUS_EVENT_RETRY_MS (a suite binds less). */
export const STATUS_EVENT_RETRY = token<number>('STATUS_EVENT_RETRY');

/**
 * Publishes every status change on JetStream (`gasless.v1.events.<status>`) for the rest of the
 * system (the quote-engine pushes the order's view on each, D13). The database is the truth; an
 * event that cannot be published is tried again with a backoff for `STATUS_EVENT_RETRY_MS` (same
 * message id, so a repeat within the stream's window is not stored twice), then logged as lost.
 * Without the retry, a `confirmed` due while the stream elected a new leader was lost, and the
 * order's last pushed view said `submitted` for good.
 */
@Injectable()
export class StatusEvents {
  private ready?: Promise<void>;

  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(STATUS_EVENT_RETRY) private readonly retryForMs = STATUS_EVENT_RETRY_MS,
    /** Stamps each event's `at`. */
    @Inject(Clock) private readonly clock: Clock = new SystemClock(),
  ) {}

  publish(chain: string, view: GaslessOrderView): void {
    const event: GaslessEvent = { ...view, chain, at: this.clock.now().toISOString() };
    void this.sendUntilDone(event);
  }

  private async sendUntilDone(event: GaslessEvent): Promise<void> {
    const backoff = new Backoff({ initialMs: 250, maxMs: 5000, jitter: 0.2 });
    const giveUpAt = performance.now() + this.retryForMs;
    const fields = { quote_hash: event.quote_hash, status: event.status };
    for (let attempt = 1; ; attempt++) {
      try {
        await this.send(event);
        if (attempt > 1) this.log.info({ ...fields, attempts: attempt }, 'status event published after a retry');
        return;
      } catch (err) {
        this.ready = undefined;
        const reason = err instanceof Error ? err.message : String(err);
        const wait = backoff.next();
        // Closed: the service is stopping (a running one reconnects, never closes).
        if (performance.now() + wait > giveUpAt || this.nc.isClosed()) {
          this.log.error({ ...fields, attempts: attempt, err: reason }, `status event not published after ${attempt} attempts; given up`);
          return;
        }
        if (attempt === 1) this.log.warn({ ...fields, err: reason }, 'status event not published; retrying');
        await new Promise((r) => setTimeout(r, wait).unref());
      }
    }
  }

  private async send(event: GaslessEvent): Promise<void> {
    this.ready ??= this.ensureStream();
    await this.ready;
    const msgID = `${event.quote_hash}:${event.status}:${event.tx_hashes.length}`;
    await jetstream(this.nc).publish(gaslessEventSubject(event.status), JSON.stringify(event), { msgID, timeout: 2000 });
  }

  private async ensureStream(): Promise<void> {
    const jsm = await jetstreamManager(this.nc);
    await ensureStream(jsm, GASLESS_EVENTS_STREAM_DEF, this.log, { replicas: streamReplicasOf(this.nc) });
  }
}
