import { until } from '@xchain/stack';

/** One server-sent event as a client receives it. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
  /** When it was parsed (ms, performance.now()). */
  at: number;
}

/**
 * A minimal SSE client over fetch, as a wallet would write one: it keeps every event and every
 * comment line it received, and lets a test wait for the next one that matches.
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  private readonly abort = new AbortController();
  ended = false;

  private constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly errorBody?: unknown,
  ) {}

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const abort = new AbortController();
    const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
    if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
      const c = new SseClient(res.status, res.headers, await res.json().catch(() => undefined));
      c.ended = true;
      return c;
    }
    const c = new SseClient(res.status, res.headers);
    (c as unknown as { abort: AbortController }).abort = abort;
    void c.read(res.body!);
    return c;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          this.parse(block);
        }
      }
    } catch {
      // aborted or reset: the stream is over
    }
    this.ended = true;
  }

  private parse(block: string): void {
    const ev: Partial<SseEvent> & { data?: string } = {};
    let isEvent = false;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      const i = line.indexOf(':');
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
      if (field === 'data') {
        ev.data = ev.data === undefined ? value : `${ev.data}\n${value}`;
        isEvent = true;
      } else if (field === 'id') ev.id = value;
      else if (field === 'event') ev.event = value;
    }
    if (isEvent)
      this.events.push({
        event: ev.event ?? 'message',
        data: ev.data ?? '',
        at: performance.now(),
        ...(ev.id !== undefined ? { id: ev.id } : {}),
      });
  }

  /** The first event at or after index `from` that matches; throws after `timeoutMs`. */
  next(match: (e: SseEvent) => boolean, from = 0, timeoutMs = 30_000): Promise<SseEvent> {
    return untilHeard(
      'a matching event',
      () => this.events.slice(from).find(match),
      () => (this.ended ? `the stream ended without a matching event (got ${this.events.map((e) => e.event).join(', ')})` : undefined),
      { timeoutMs, detail: () => `got ${this.events.length} events` },
    );
  }

  /** Waits until a comment (heartbeat) arrives after `count` comments were seen. */
  async nextComment(count: number, timeoutMs = 10_000): Promise<void> {
    await untilHeard(
      'a heartbeat',
      () => this.comments.length > count,
      () => (this.ended ? 'no heartbeat' : undefined),
      { timeoutMs },
    );
  }

  close(): void {
    this.abort.abort();
  }
}

/**
 * Waits until a stream reader has heard what `heard` looks for, failing at once with what `ended`
 * says once the stream is over without it, or after `timeoutMs`.
 */
export function untilHeard<T>(
  what: string,
  heard: () => T | undefined | false,
  ended: () => string | undefined,
  options: { timeoutMs: number; detail?: () => string },
): Promise<T> {
  return until(
    what,
    () => {
      const found = heard();
      if (found !== undefined && found !== false) return found;
      const why = ended();
      if (why !== undefined) throw new Error(why);
      return undefined;
    },
    { ...options, everyMs: 10, failOnError: true },
  );
}
