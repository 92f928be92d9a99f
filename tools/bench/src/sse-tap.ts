import type { OrderEvent, XchainClient } from '@xchain/client';
import { nowMs } from './gasless-users';

interface Seen {
  status: string;
  /** Monotonic ms (nowMs) and wall-clock ms when the event arrived. */
  atMs: number;
  wallMs: number;
}

/** An order's server-sent event stream (read by the typed client), kept for timing only: when each status first arrived. */
export class SseTap {
  private readonly seen: Seen[] = [];
  private constructor(private readonly abort: AbortController) {}

  /** Resolves once the stream is open and its first event (the current view) has arrived. */
  static async open(client: XchainClient, quoteHash: string): Promise<SseTap> {
    const abort = new AbortController();
    const tap = new SseTap(abort);
    const events = client.streamOrderEvents(quoteHash, { signal: abort.signal });
    const first = await events.next();
    if (first.done) throw new Error(`the stream of ${quoteHash} ended before its first event`);
    tap.note(first.value);
    void tap.drain(events);
    return tap;
  }

  private note(e: OrderEvent): void {
    this.seen.push({ status: e.order.status, atMs: nowMs(), wallMs: Date.now() });
  }

  private async drain(events: AsyncGenerator<OrderEvent, void, undefined>): Promise<void> {
    try {
      for await (const e of events) this.note(e);
    } catch {
      // closed
    }
  }

  firstWithStatus(status: string): Seen | undefined {
    return this.seen.find((s) => s.status === status);
  }

  close(): void {
    this.abort.abort();
  }
}
