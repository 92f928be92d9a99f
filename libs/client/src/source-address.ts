import { type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/** Statuses whose answers have no body: a Response must be built with a null one. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * A fetch whose connections leave from `localAddress`: for a host with several addresses, or a
 * test that stands in for several callers of a limit keyed on the caller's IP.
 *
 * Node's global fetch can be bound to a source address only through an undici Agent, which Node
 * does not export (it would take the `undici` package); `node:http` binds each request itself. It
 * does what the client needs and no more: string headers, a string body, an abort signal, and an
 * answer whose body streams (so StreamOrderEvents works through it). Redirects are not followed;
 * the API never answers with one.
 */
export function fetchFrom(localAddress: string): typeof fetch {
  const bound = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (input instanceof Request) return Promise.reject(new TypeError('fetchFrom takes a URL, not a Request'));
    const url = new URL(String(input));
    const send = url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
    if (!send) return Promise.reject(new TypeError(`fetchFrom: unsupported protocol ${url.protocol}`));
    const body = init.body ?? undefined;
    if (body !== undefined && typeof body !== 'string') return Promise.reject(new TypeError('fetchFrom sends string bodies only'));
    const headers: Record<string, string> = Object.fromEntries(new Headers(init.headers));
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const method = (init.method ?? 'GET').toUpperCase();
    return new Promise<Response>((resolve, reject) => {
      const req = send(url, { method, headers, localAddress, ...(init.signal ? { signal: init.signal } : {}) }, (res) => {
        try {
          resolve(toResponse(res, method));
        } catch (err) {
          res.destroy();
          reject(err);
        }
      });
      req.on('error', reject);
      req.end(body);
    });
  };
  return bound as typeof fetch;
}

/** The answer as a fetch Response, its body read from the socket as the caller consumes it. */
function toResponse(res: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const status = res.statusCode ?? 0;
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(status)) {
    res.resume();
    return new Response(null, { status, statusText: res.statusMessage ?? '', headers });
  }
  const body = Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>;
  return new Response(body, { status, statusText: res.statusMessage ?? '', headers });
}
