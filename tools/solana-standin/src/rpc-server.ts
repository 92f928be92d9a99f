import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { RpcFailure } from './ledger';
import type { RpcMethod } from './rpc-methods';

const MAX_BODY_BYTES = 2 * 1024 * 1024;

interface Request {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/**
 * JSON-RPC 2.0 over HTTP POST (single calls and batches), answering HTTP 200 with the result or
 * the error object as a validator does, plus `GET /health`. bigint values are written as exact
 * JSON numbers (u64 lamports and amounts can exceed 2^53).
 */
export function rpcServer(methods: Record<string, RpcMethod>, onError: (err: unknown) => void = () => undefined): Server {
  const call = (req: Request): object | undefined => {
    const id = req.id ?? null;
    if (req.jsonrpc !== '2.0' || typeof req.method !== 'string') return failure(id, -32600, 'Invalid request');
    const method = Object.hasOwn(methods, req.method) ? methods[req.method] : undefined;
    if (!method) return failure(id, -32601, 'Method not found');
    if (req.params !== undefined && !Array.isArray(req.params)) return failure(id, -32602, 'Invalid params: expected an array');
    try {
      const result = method((req.params as unknown[] | undefined) ?? []);
      return req.id === undefined ? undefined : { jsonrpc: '2.0', result, id };
    } catch (err) {
      if (err instanceof RpcFailure) return failure(id, err.code, err.message, err.data);
      onError(err);
      return failure(id, -32603, 'Internal error');
    }
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === '/health') return send(res, 200, 'ok', 'text/plain');
    if (req.method !== 'POST') return send(res, 405, 'Used HTTP Method is not allowed. POST or OPTIONS is required', 'text/plain');
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        send(res, 413, 'Payload Too Large', 'text/plain');
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.writableEnded) return;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(res, 200, json(failure(null, -32700, 'Parse error')));
      }
      if (Array.isArray(body)) {
        if (body.length === 0) return send(res, 200, json(failure(null, -32600, 'Invalid request')));
        const answers = body
          .map((r) => (r && typeof r === 'object' ? call(r as Request) : failure(null, -32600, 'Invalid request')))
          .filter((a) => a !== undefined);
        return send(res, 200, json(answers));
      }
      const answer = body && typeof body === 'object' ? call(body as Request) : failure(null, -32600, 'Invalid request');
      return answer === undefined ? send(res, 200, '') : send(res, 200, json(answer));
    });
  });
  // Bounded: a client that stops half-way cannot hold a socket forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  return server;
}

function failure(id: unknown, code: number, message: string, data?: unknown): object {
  return { jsonrpc: '2.0', error: { code, message, ...(data !== undefined ? { data } : {}) }, id };
}

const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

function json(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? rawJson(v.toString()) : v));
}

function send(res: ServerResponse, status: number, body: string, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
