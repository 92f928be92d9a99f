import { createHash } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Inject, Injectable } from '@nestjs/common';
import { Code, ORDER_UPDATES_STREAM_DEF, RpcError, type OrderStatus, type OrderUpdate, orderUpdateSubject } from '@xchain/contracts';
import { ensureStream, streamReplicasOf, type NatsConnection } from '@xchain/messaging';
import { Clock, LOGGER, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { NATS_REQUEST_TIMEOUT_MS } from '../config.tokens';
import { OrderViewService } from './order-view.service';
import { OrderViewPushRepository, type PushLog } from './order-view-push.repository';

export type { PushLog } from './order-view-push.repository';

/** Publishes an update on the stream, once per event id. */
export type UpdateSink = (update: OrderUpdate) => Promise<void>;

/** A digest of a view, so an unchanged view is not pushed again (key order is the schema's, fixed). */
export function viewDigest(view: OrderStatus): string {
  return createHash('sha256').update(JSON.stringify(view)).digest('hex').slice(0, 32);
}

/**
 * Pushes an order's view each time it changes (D13): after a step is recorded or withdrawn, and
 * after each relay status. The view is recomputed from the database (never from the event that
 * triggered it), compared with the last view pushed, and published with the next version on the
 * ORDER_UPDATES_V1 stream. Changes of one order are handled one at a time, in order, in a replica;
 * across replicas the version is claimed in the database before anything is published, with the
 * update itself, so only the replica that claimed a version publishes it, and never two views under
 * one version nor one view under two. A claimed update not yet known published (a crash, an outage
 * of the stream) is published first by the next push of that order, by any replica; its event id
 * makes the stream drop a second copy.
 */
export class OrderUpdatePusher {
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly views: Pick<OrderViewService, 'get'>,
    private readonly pushes: PushLog,
    private readonly sink: UpdateSink,
    /** Stamps each update's `occurred_at`. */
    private readonly clock: Clock,
  ) {}

  /** Resolves once the view as it is now has been pushed (or was already); throws to be retried. */
  changed(quoteHash: string): Promise<void> {
    const hash = quoteHash.toLowerCase();
    const previous = this.inFlight.get(hash) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.push(hash));
    this.inFlight.set(hash, next);
    void next
      .finally(() => {
        if (this.inFlight.get(hash) === next) this.inFlight.delete(hash);
      })
      .catch(() => undefined);
    return next;
  }

  /**
   * The one push of a quote that never became an order (D16's `expired`, QuoteExpirySweep): version
   * 1, nothing recorded (no row per quote); its event id `<hash>:1` lets the stream drop a repeat.
   * False when there is nothing to push: the quote is gone, or its view is not `expired` (it became an order).
   */
  async expiredQuote(quoteHash: string): Promise<boolean> {
    const hash = quoteHash.toLowerCase();
    let view: OrderStatus;
    try {
      // No relayer call: a quote the relayer took is an order (GaslessEventsConsumer), not swept here.
      view = await this.views.get(hash, { skipGasless: true });
    } catch (err) {
      if (err instanceof RpcError && err.status.code === Code.NOT_FOUND) return false;
      throw err;
    }
    if (view.status !== 'expired') return false;
    const partnerId = await this.pushes.partnerOf(hash);
    await this.sink({
      event_id: `${hash}:1`,
      quote_hash: hash,
      version: 1,
      ...(partnerId ? { partner_id: partnerId } : {}),
      occurred_at: this.clock.now().toISOString(),
      order: view,
    });
    return true;
  }

  private async push(quoteHash: string): Promise<void> {
    const last = await this.pushes.last(quoteHash);
    if (last?.pending) {
      await this.sink(last.pending);
      await this.pushes.published(quoteHash, last.pending.version);
    }
    let view: OrderStatus;
    try {
      view = await this.views.get(quoteHash, { requireGasless: true });
    } catch (err) {
      if (err instanceof RpcError && err.status.code === Code.NOT_FOUND) return; // no (longer a) retained quote: nobody to tell
      throw err;
    }
    const digest = viewDigest(view);
    if (last?.digest === digest) return;
    const version = (last?.version ?? 0) + 1;
    const partnerId = await this.pushes.partnerOf(quoteHash);
    const update: OrderUpdate = {
      event_id: `${quoteHash}:${version}`,
      quote_hash: quoteHash,
      version,
      ...(partnerId ? { partner_id: partnerId } : {}),
      occurred_at: this.clock.now().toISOString(),
      order: view,
    };
    if (!(await this.pushes.claim(quoteHash, update, digest)))
      throw new Error(`order ${quoteHash}: version ${version} was claimed concurrently; recomputing`);
    await this.sink(update);
    await this.pushes.published(quoteHash, version);
  }
}

/** JetStream publishing of order updates, creating the stream when missing (a differing one is reported, not changed). */
export function jetStreamUpdateSink(nc: NatsConnection, timeoutMs: number, log: Pick<Logger, 'warn'>): UpdateSink {
  let ready: Promise<void> | undefined;
  const ensure = async () => {
    const jsm = await jetstreamManager(nc, { timeout: timeoutMs });
    await ensureStream(jsm, ORDER_UPDATES_STREAM_DEF, log, { replicas: streamReplicasOf(nc) });
  };
  const js = jetstream(nc, { timeout: timeoutMs });
  return async (update) => {
    ready ??= ensure().catch((err: unknown) => {
      ready = undefined;
      throw err;
    });
    await ready;
    await js.publish(orderUpdateSubject(update.quote_hash), JSON.stringify(update), { msgID: update.event_id });
  };
}

/** The pusher as the quote-engine runs it. */
@Injectable()
export class OrderUpdates extends OrderUpdatePusher {
  constructor(
    @Inject(OrderViewService) views: OrderViewService,
    @Inject(OrderViewPushRepository) pushes: OrderViewPushRepository,
    @Inject(NATS) nc: NatsConnection,
    @Inject(LOGGER) log: Logger,
    @Inject(NATS_REQUEST_TIMEOUT_MS) timeoutMs: number,
    @Inject(Clock) clock: Clock,
  ) {
    super(views, pushes, jetStreamUpdateSink(nc, timeoutMs, log), clock);
  }
}
