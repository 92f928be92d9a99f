import { createInbox, errors as natsErrors, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { PendingTable } from './pending-table';

interface Pending {
  subject: string;
  resolve: (msg: Msg) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Request/reply over one wildcard inbox subscription per connection, as nats.js's own `request`
 * does, without its per-request bookkeeping: nats.js builds an Error (a stack trace) on every
 * completed request to reject a promise that is already settled, a cost on every bus call of the
 * hot path. Failures are nats.js's own error classes, so callers map them
 * the same way:
 * - nobody subscribed: the server's 503 status reply → `NoRespondersError`;
 * - no reply within the deadline → `TimeoutError`;
 * - the server refused the publish (D14, `-ERR Permissions Violation`): the oldest request to
 *   that subject gets the `PermissionViolationError`; a refused inbox subscription fails every
 *   request waiting on it, and the next request subscribes again;
 * - the connection closed → `ClosedConnectionError`.
 */
export class ReplyMux {
  /** Not a Map: see PendingTable (with a Map, the gateway promoted every request after a pause). */
  private readonly pending = new PendingTable<Pending>();
  private readonly prefix: string;
  private readonly sub: Subscription;
  private broken = false;

  private constructor(private readonly nc: NatsConnection) {
    const inboxPrefix = (nc as unknown as { options?: { inboxPrefix?: string } }).options?.inboxPrefix;
    this.prefix = `${createInbox(inboxPrefix)}.`;
    this.sub = nc.subscribe(`${this.prefix}*`, { callback: (err, msg) => (err ? this.failAll(err) : this.settle(msg)) });
    void this.sub.closed.then(() => this.failAll(new natsErrors.ClosedConnectionError()));
    void this.watchPermissions();
  }

  private static readonly byConnection = new WeakMap<NatsConnection, ReplyMux>();

  /** The connection's mux, made on first use (and made again after its subscription was refused). */
  static of(nc: NatsConnection): ReplyMux {
    let mux = ReplyMux.byConnection.get(nc);
    if (!mux || mux.broken) {
      mux = new ReplyMux(nc);
      ReplyMux.byConnection.set(nc, mux);
    }
    return mux;
  }

  request(subject: string, data: Uint8Array, timeoutMs: number, headers?: MsgHdrs): Promise<Msg> {
    return new Promise<Msg>((resolve, reject) => {
      const p: Pending = { subject, resolve, reject, timer: undefined };
      const token = this.pending.add(p);
      p.timer = setTimeout(() => {
        this.pending.take(token);
        reject(new natsErrors.TimeoutError());
      }, timeoutMs);
      try {
        this.nc.publish(subject, data, { reply: this.prefix + token, ...(headers ? { headers } : {}) });
      } catch (err) {
        this.take(token);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  private settle(msg: Msg): void {
    const p = this.take(msg.subject.slice(this.prefix.length));
    if (!p) return; // late: its deadline already answered the caller
    if (msg.data.length === 0 && msg.headers?.code === 503) p.reject(new natsErrors.NoRespondersError(p.subject));
    else p.resolve(msg);
  }

  private take(token: string): Pending | undefined {
    const p = this.pending.take(token);
    if (p) clearTimeout(p.timer);
    return p;
  }

  private failAll(err: Error): void {
    this.broken = true;
    for (const token of this.pending.tokens()) this.take(token)?.reject(err);
  }

  private async watchPermissions(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (this.broken) return;
      if (s.type !== 'error' || !(s.error instanceof natsErrors.PermissionViolationError)) continue;
      const pe = s.error;
      if (pe.operation === 'subscription' && pe.subject === this.sub.getSubject()) {
        this.failAll(pe);
        this.sub.unsubscribe();
        return;
      }
      if (pe.operation === 'publish') {
        const token = this.pending.findOldest((p) => p.subject === pe.subject);
        if (token !== undefined) this.take(token)?.reject(pe);
      }
    }
  }
}
