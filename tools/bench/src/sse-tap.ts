import { nowMs } from './gasless-users';

interface Seen {
  status: string;
  /** Monotonic ms (nowMs) and wall-clock ms when the event was parsed. */
  atMs: number;
  wallMs: number;
}

/** A server-sent event stream read for timing only: when each order status first arrived. */
export class SseTap {
  private readonly seen: Seen[] = [];
  private constructor(private readonly abort: AbortController) {}

  static async open(url: string): Promise<SseTap> {
    const abort = new AbortController();
    const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
    if (res.status !== 200 || !res.body) throw new Error(`stream ${url}: HTTP ${res.status}`);
    const tap = new SseTap(abort);
    void tap.read(res.body);
    return tap;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer
            .slice(0, cut)
            .split('\n')
            .find((l) => l.startsWith('data: '));
          buffer = buffer.slice(cut + 2);
          if (data) this.seen.push({ status: (JSON.parse(data.slice(6)) as { status: string }).status, atMs: nowMs(), wallMs: Date.now() });
        }
      }
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
