import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { OrderStatus, OrderUpdate } from '@xchain/contracts';
import type { Clock } from '@xchain/service-kit';

/** An SSE event id: a digest of the view it carries, so a client resuming with it is not sent the same view again. */
export function sseEventId(view: OrderStatus): string {
  return createHash('sha256').update(JSON.stringify(view)).digest('hex').slice(0, 32);
}

export interface OrderStreamOptions {
  /** The order view as it is now (order.v1.get). A read: a failed one is tried again (`readAttempts`). */
  fetchView: () => Promise<OrderStatus>;
  /** Tries of one read before the stream gives up on it (default 3): an instance dying mid-read costs one. */
  readAttempts?: number;
  /** Subscribes to the order's pushed updates; returns the unsubscribe. */
  follow: (listener: (u: OrderUpdate) => void) => () => void;
  /** Last-Event-ID of a resuming client. */
  lastEventId?: string;
  heartbeatMs: number;
  /** A stream is closed after this long; the client reconnects with Last-Event-ID. */
  maxDurationMs: number;
  /** How long the client waits before reconnecting, sent as `retry:`. */
  retryMs: number;
  /** Aborted when the gateway shuts down: the stream ends at once (the client reconnects elsewhere). */
  signal?: AbortSignal;
  /** Tells when the order's retention ends, and stamps the heartbeats. */
  clock: Clock;
}

/**
 * One server-sent event stream of an order's view (D13) on a raw response whose head was written:
 * the current view first (unless the client resumes with its id), then one event per change, in
 * version order, heartbeats as comments, a refetch when a quoted order's retention ends (it is
 * `expired` then, D16; the same view pushed after that is not sent twice), and the end after
 * `maxDurationMs`. Updates that arrive while the first view is read are not lost: if any
 * arrived, the view is read once more, and older versions than one already sent are dropped.
 * Resolves when the stream is over (either side closed it).
 */
export async function streamOrderEvents(res: ServerResponse, opts: OrderStreamOptions): Promise<void> {
  const now = () => opts.clock.nowMs();
  let lastSent = opts.lastEventId;
  let maxVersion = 0;
  let closed = false;
  let initialDone = false;
  const buffered: OrderUpdate[] = [];
  const timers: NodeJS.Timeout[] = [];
  let finish: () => void = () => undefined;
  const over = new Promise<void>((resolve) => (finish = resolve));

  /** The view, read again on a failure (the read went to an instance that died, or was late) while the stream lives. */
  const readView = async (): Promise<OrderStatus> => {
    const attempts = Math.max(1, opts.readAttempts ?? 3);
    for (let i = 1; ; i++) {
      try {
        return await opts.fetchView();
      } catch (err) {
        if (i >= attempts || closed) throw err;
      }
    }
  };
  const write = (chunk: string) => {
    if (!closed && !res.writableEnded) res.write(chunk);
  };
  const send = (view: OrderStatus) => {
    const id = sseEventId(view);
    if (id === lastSent) return;
    lastSent = id;
    write(`id: ${id}\nevent: order\ndata: ${JSON.stringify(view)}\n\n`);
    scheduleExpiry(view);
  };
  let expiryTimer: NodeJS.Timeout | undefined;
  const scheduleExpiry = (view: OrderStatus) => {
    clearTimeout(expiryTimer);
    if (view.status !== 'quoted') return;
    // Not at expires_at: a quote stays open (quoted) until its retention ends.
    const inMs = Date.parse(view.retained_until) - now() + 1000;
    if (inMs > opts.maxDurationMs) return;
    expiryTimer = setTimeout(() => void readView().then(send, () => undefined), Math.max(0, inMs));
  };
  const close = () => {
    if (closed) return;
    closed = true;
    unfollow();
    clearTimeout(expiryTimer);
    for (const t of timers) clearInterval(t);
    if (!res.writableEnded) res.end();
    finish();
  };

  const unfollow = opts.follow((u) => {
    if (!initialDone) return void buffered.push(u);
    if (u.version <= maxVersion) return;
    maxVersion = u.version;
    send(u.order);
  });
  res.on('close', close);
  if (opts.signal?.aborted) close();
  opts.signal?.addEventListener('abort', close, { once: true });

  write(`retry: ${opts.retryMs}\n\n`);
  try {
    let view = await readView();
    if (buffered.length > 0) view = await readView(); // changed while it was read: the newest
    for (const u of buffered) maxVersion = Math.max(maxVersion, u.version);
    initialDone = true;
    send(view);
  } catch {
    // The first view cannot be read, even tried again (the quote-engine is down or late): the client retries with its id.
    write(`event: error\ndata: ${JSON.stringify({ message: 'the order view is unavailable; reconnecting will retry' })}\n\n`);
    close();
    return over;
  }
  timers.push(setInterval(() => write(`: heartbeat ${new Date(now()).toISOString()}\n\n`), opts.heartbeatMs));
  timers.push(setTimeout(close, opts.maxDurationMs));
  return over;
}
