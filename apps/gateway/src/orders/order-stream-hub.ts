import { ORDER_UPDATE_SUBJECTS, OrderUpdateSchema, type OrderUpdate } from '@xchain/contracts';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from '@xchain/telemetry';

type Listener = (update: OrderUpdate) => void;

/** Why a stream was not admitted: its caller holds its most, or this replica holds its most. */
export type StreamRefusal = 'caller_full' | 'replica_full';

export interface StreamLimits {
  perCaller: number;
  perReplica: number;
}

/**
 * The gateway's one subscription to every order update (`orders.v1.updated.*`), fanned out to the
 * server-sent event streams open on this replica, by quote hash. It also counts open streams, per
 * caller and in all, so neither one caller nor many callers together hold every connection (and
 * file descriptor) of the replica.
 */
export class OrderStreamHub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly openPerCaller = new Map<string, number>();
  private openTotal = 0;
  private sub?: Subscription;
  private readonly closing = new AbortController();
  /** Aborted when the gateway stops: every open stream ends. */
  readonly shutdown: AbortSignal = this.closing.signal;

  constructor(
    private readonly nc: Pick<NatsConnection, 'subscribe'>,
    readonly limits: StreamLimits,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  start(): void {
    if (this.sub) return;
    this.sub = this.nc.subscribe(ORDER_UPDATE_SUBJECTS, {
      callback: (err, msg) => {
        if (err) return;
        const set = this.listeners.get(msg.subject.slice(msg.subject.lastIndexOf('.') + 1));
        if (!set) return; // nobody here follows this order: not even parsed
        let update: OrderUpdate;
        try {
          update = OrderUpdateSchema.parse(msg.json());
        } catch {
          this.log.warn({ subject: msg.subject }, 'order update not in the contract shape: dropped');
          return;
        }
        for (const l of set) l(update);
      },
    });
  }

  stop(): void {
    this.closing.abort();
    this.sub?.unsubscribe();
    this.sub = undefined;
  }

  /** Follows one order: the function that stops following it, or why it was refused. */
  follow(caller: string, quoteHash: string, listener: Listener): (() => void) | StreamRefusal {
    const open = this.openPerCaller.get(caller) ?? 0;
    if (open >= this.limits.perCaller) return 'caller_full';
    if (this.openTotal >= this.limits.perReplica) return 'replica_full';
    this.openPerCaller.set(caller, open + 1);
    this.openTotal++;
    const hash = quoteHash.toLowerCase();
    let set = this.listeners.get(hash);
    if (!set) this.listeners.set(hash, (set = new Set()));
    set.add(listener);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(hash);
      this.openTotal--;
      const n = (this.openPerCaller.get(caller) ?? 1) - 1;
      if (n <= 0) this.openPerCaller.delete(caller);
      else this.openPerCaller.set(caller, n);
    };
  }

  /** Streams open on this replica (the `sse_streams_open` gauge, tests). */
  get open(): number {
    return this.openTotal;
  }
}
