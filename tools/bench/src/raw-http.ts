import { connect, type Socket } from 'node:net';

/**
 * A lean HTTP/1.1 client for the load generator: one request at a time per keep-alive connection,
 * the request's bytes built once per run, and only what a load generator needs from the answer
 * (its status, and where it ends). `node:http` costs the generator about as much CPU per request
 * as the gateway spends serving a PreviewQuote, and the generator shares the cores with what it
 * measures.
 */
export interface RawTarget {
  host: string;
  port: number;
  request: Buffer;
}

export interface RawRequestSpec {
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
}

/** The request's bytes, as `node:http` would send them for the same call (with Content-Length, never chunked). */
export function rawTarget(spec: RawRequestSpec): RawTarget {
  const url = new URL(spec.url);
  if (url.protocol !== 'http:') throw new Error(`the load generator speaks plain HTTP only, not ${url.protocol}`);
  const body = spec.body === undefined ? undefined : Buffer.from(spec.body);
  const lines = [`${spec.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, 'Connection: keep-alive'];
  for (const [name, value] of Object.entries(spec.headers ?? {})) lines.push(`${name}: ${value}`);
  if (body) lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return { host: url.hostname, port: Number(url.port || 80), request: body ? Buffer.concat([head, body]) : head };
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** Where the response starting at `buf[0]` ends, and its status; undefined while incomplete. */
export function parseResponse(buf: Buffer): { status: number; end: number; close: boolean } | undefined {
  const headEnd = buf.indexOf(CRLF2);
  if (headEnd < 0) return undefined;
  const head = buf.toString('latin1', 0, headEnd).toLowerCase();
  if (!head.startsWith('http/1.')) throw new Error(`not an HTTP/1.x response: ${JSON.stringify(head.slice(0, 40))}`);
  const status = Number(head.slice(9, 12));
  const header = (name: string): string | undefined => {
    const at = head.indexOf(`\r\n${name}:`);
    if (at < 0) return undefined;
    const from = at + name.length + 3;
    const to = head.indexOf('\r\n', from);
    return head.slice(from, to < 0 ? undefined : to).trim();
  };
  const close = header('connection') === 'close';
  const bodyStart = headEnd + 4;
  if (status === 204 || status === 304 || (status >= 100 && status < 200)) return { status, end: bodyStart, close };
  const length = header('content-length');
  if (length !== undefined) {
    const end = bodyStart + Number(length);
    return buf.length >= end ? { status, end, close } : undefined;
  }
  if (header('transfer-encoding')?.includes('chunked')) {
    let at = bodyStart;
    for (;;) {
      const lineEnd = buf.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(buf.toString('latin1', at, lineEnd), 16);
      if (Number.isNaN(size)) throw new Error('malformed chunked body');
      if (size === 0) {
        // No trailers expected: the last chunk is followed by an empty line.
        return buf.length >= lineEnd + 4 ? { status, end: lineEnd + 4, close } : undefined;
      }
      at = lineEnd + 2 + size + 2;
      if (buf.length < at) return undefined;
    }
  }
  throw new Error('a response with neither Content-Length nor chunked encoding');
}

/** One keep-alive connection; `send` may be called again once its promise settles. */
export class RawConnection {
  private readonly socket: Socket;
  private buf: Buffer = Buffer.alloc(0);
  private waiting?: { resolve: (status: number) => void; reject: (err: Error) => void; timer: NodeJS.Timeout };
  private failure?: Error;

  constructor(
    private readonly target: RawTarget,
    private readonly timeoutMs = 10_000,
  ) {
    this.socket = connect({ host: target.host, port: target.port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.fail(new Error('connection closed')));
  }

  /** False once the connection failed or the server closed it: take another. */
  get usable(): boolean {
    return this.failure === undefined;
  }

  send(): Promise<number> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.waiting) return Promise.reject(new Error('a request is already in flight on this connection'));
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error('timeout')), this.timeoutMs);
      this.waiting = { resolve, reject, timer };
      this.socket.write(this.target.request);
    });
  }

  close(): void {
    this.failure ??= new Error('closed by the generator');
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    let parsed;
    try {
      parsed = parseResponse(this.buf);
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    if (!parsed) return;
    this.buf = this.buf.subarray(parsed.end);
    const w = this.waiting;
    this.waiting = undefined;
    if (parsed.close) this.close();
    if (!w) {
      this.fail(new Error('a response nobody asked for'));
      return;
    }
    clearTimeout(w.timer);
    w.resolve(parsed.status);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const w = this.waiting;
    this.waiting = undefined;
    if (w) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    if (!this.socket.destroyed) this.socket.destroy();
  }
}
