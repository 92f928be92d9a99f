import type { HttpOperation, OrderStatus } from '@xchain/contracts';
import { XchainApiError, XchainNetworkError, XchainResponseError, XchainTimeoutError } from './errors';

/** One `order` event of StreamOrderEvents: the whole order view and the id to resume from. */
export interface OrderEvent {
  id: string | undefined;
  order: OrderStatus;
}

export interface StreamOptions {
  /** Resume after this event (sent as Last-Event-ID): the current view comes only if it changed since. */
  lastEventId?: string;
  /** Ends the stream; the iteration then simply stops. */
  signal?: AbortSignal;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Called once the stream is open (a 2xx event stream), with its status and headers (x-request-id, …). */
  onOpen?: (answer: { status: number; headers: Headers }) => void;
  /** Called with the text of each comment line (the server's heartbeats), which yield no event. */
  onComment?: (text: string) => void;
}

interface StreamRequest {
  op: HttpOperation;
  url: string;
  headers: Record<string, string>;
  /** Bounds the wait for the answer's headers; the stream itself runs until the server ends it. */
  openTimeoutMs: number;
  signal: AbortSignal | undefined;
  fetchImpl: typeof fetch;
  onOpen?: StreamOptions['onOpen'];
  onComment?: StreamOptions['onComment'];
}

/**
 * Reads a `text/event-stream` (D13) and yields each `order` event's view, checked against the
 * operation's response schema. Errors before the stream opens arrive as an XchainApiError, as for
 * every other operation; comments (heartbeats) and other event types are skipped.
 */
export async function* readOrderEvents(req: StreamRequest): AsyncGenerator<OrderEvent, void, undefined> {
  const { op } = req;
  const opened = new AbortController();
  const timer = setTimeout(() => opened.abort(), req.openTimeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, opened.signal]) : opened.signal;
  let res: Response;
  try {
    res = await req.fetchImpl(req.url, { method: 'GET', headers: { ...req.headers, accept: 'text/event-stream' }, signal });
  } catch (err) {
    if (req.signal?.aborted) return;
    if (opened.signal.aborted) throw new XchainTimeoutError(op.operationId, req.openTimeoutMs);
    throw new XchainNetworkError(op.operationId, err);
  } finally {
    clearTimeout(timer);
  }
  if (!res.ok) {
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: reported below as it is
    }
    throw (
      XchainApiError.fromBody(op.operationId, res.status, body, res.headers) ??
      new XchainResponseError(op.operationId, `HTTP ${res.status} without a google.rpc.Status body`, res.status, body)
    );
  }
  if (!res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new XchainResponseError(
      op.operationId,
      `expected text/event-stream, got ${res.headers.get('content-type')}`,
      res.status,
      undefined,
    );
  }
  req.onOpen?.({ status: res.status, headers: res.headers });
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const event = parseBlock(buffer.slice(0, cut), req.onComment);
        buffer = buffer.slice(cut + 2);
        if (event?.type !== 'order') continue;
        let json: unknown;
        try {
          json = JSON.parse(event.data);
        } catch {
          throw new XchainResponseError(op.operationId, 'an order event whose data is not JSON', res.status, event.data);
        }
        const parsed = op.response.safeParse(json);
        if (!parsed.success)
          throw new XchainResponseError(op.operationId, 'an order event that does not match its schema', res.status, json);
        yield { id: event.id, order: parsed.data as OrderStatus };
      }
    }
  } catch (err) {
    if (req.signal?.aborted) return;
    if (err instanceof XchainResponseError) throw err;
    throw new XchainNetworkError(op.operationId, err);
  }
}

function parseBlock(block: string, onComment?: (text: string) => void): { type: string; data: string; id: string | undefined } | undefined {
  let type = 'message';
  let data: string | undefined;
  let id: string | undefined;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) onComment?.(line.slice(1).replace(/^ /, ''));
    if (line === '' || line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const field = i < 0 ? line : line.slice(0, i);
    const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
    if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
    else if (field === 'event') type = value;
    else if (field === 'id') id = value;
  }
  return data === undefined ? undefined : { type, data, id };
}
