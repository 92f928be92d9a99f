import { GASLESS_EVENTS_STREAM_DEF, type GaslessEvent, type GaslessOrderView, gaslessEventSubject } from '@xchain/contracts';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ensureStream, streamReplicasOf, type NatsConnection } from '@xchain/messaging';
import type { Logger } from '@xchain/telemetry';

/**
 * Publishes every status change on JetStream (`gasless.v1.events.<status>`) for the rest of the
 * system. The database is the truth; an event that cannot be published is logged, never retried
 * into a second copy (the message id deduplicates a repeat within the stream's window).
 */
export class StatusEvents {
  private ready?: Promise<void>;

  constructor(
    private readonly nc: NatsConnection,
    private readonly log: Logger,
  ) {}

  publish(chain: string, view: GaslessOrderView): void {
    const event: GaslessEvent = { ...view, chain, at: new Date().toISOString() };
    void this.send(event).catch((err: unknown) => {
      this.ready = undefined;
      this.log.warn({ quote_hash: view.quote_hash, status: view.status, err: err instanceof Error ? err.message : String(err) }, 'status event not published');
    });
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
