import type { z } from 'zod';
import { HTTP_OPERATIONS, type HttpOperation, type PartnerOrdersExportQuery } from '@xchain/contracts';
import { XchainApiError, XchainNetworkError, XchainResponseError, XchainTimeoutError } from './errors';
import { CLIENT_OPERATIONS, type ClientOperations, type MethodName, type OperationId, methodName } from './operations';
import { type OrderEvent, type StreamOptions, readOrderEvents } from './order-events';
import { fetchFrom } from './source-address';

export interface XchainClientOptions {
  /**
   * The gateway, e.g. `http://127.0.0.1:8080`, or the API's root as `npm start` prints it,
   * `http://127.0.0.1:8080/json/v1`: every path is served under `/json/v1`, so a base URL that
   * already ends with it (with or without a trailing slash) means the same gateway.
   */
  baseUrl: string;
  /** Sent as `x-api-key` to the operations that take one (quotes, gasless orders, streams). */
  apiKey?: string;
  /** A partner session token, sent as `Authorization: Bearer` to the partner operations. */
  sessionToken?: string;
  /** Bound on one call, answer body included (default 10 s). */
  timeoutMs?: number;
  /** A fetch implementation (default the global one). */
  fetch?: typeof fetch;
  /**
   * The local address the client's connections leave from (e.g. `127.0.0.2`): a host with several
   * addresses, or a test standing in for several callers of a per-IP limit. Requests then go
   * through `fetchFrom(localAddress)`; not together with `fetch`.
   */
  localAddress?: string;
}

/** Per-call settings; `apiKey` and `sessionToken` override the client's for this call. */
export interface CallOptions {
  apiKey?: string;
  sessionToken?: string;
  /** Extra request headers (e.g. `if-none-match`); they win over the client's own. */
  headers?: Record<string, string>;
  /**
   * Sent as `Idempotency-Key` (getQuote, submitGaslessOrder): a retry with the same key and body gets
   * the first answer again instead of running twice. Other operations refuse it.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

type Schemas<K extends OperationId> = ClientOperations[K];
type InputOf<S, F extends string> = S extends { readonly [P in F]: infer T extends z.ZodType } ? z.input<T> : unknown;
/** Path and query parameters of an operation, together in one object. */
export type ParamsOf<K extends OperationId> = InputOf<Schemas<K>, 'pathParams'> & InputOf<Schemas<K>, 'query'>;
export type BodyOf<K extends OperationId> = InputOf<Schemas<K>, 'body'>;
export type ResultOf<K extends OperationId> = z.output<Schemas<K>['response']>;

type HasParams<S> = S extends { pathParams: z.ZodType } ? true : S extends { query: z.ZodType } ? true : false;
type ParamsArg<K extends OperationId> =
  HasParams<Schemas<K>> extends true
    ? Schemas<K> extends { body: z.ZodType }
      ? [params: ParamsOf<K>]
      : object extends ParamsOf<K>
        ? [params?: ParamsOf<K>]
        : [params: ParamsOf<K>]
    : [];
type BodyArg<K extends OperationId> = Schemas<K> extends { body: z.ZodType } ? [body: BodyOf<K>] : [];
/** A method's arguments: path and query parameters if it has any, its body if it has one, then options. */
export type ArgsOf<K extends OperationId> = [...ParamsArg<K>, ...BodyArg<K>, options?: CallOptions];

/** One method per operation of CLIENT_OPERATIONS, named after its operationId in camelCase. */
export type XchainMethods = {
  [K in OperationId as MethodName<K>]: (...args: ArgsOf<K>) => Promise<ResultOf<K>>;
};

/** What a call returns besides its value: the HTTP status, headers and the body as received. */
export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  /** The body validated and normalised by the operation's response schema. */
  data: T;
  /** The JSON body exactly as the server sent it. */
  body: unknown;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const OPERATIONS = new Map<string, HttpOperation>(HTTP_OPERATIONS.map((op) => [op.operationId, op]));

/**
 * The request/response machinery; `XchainClient` adds one method per operation on top. Every
 * operation's route, auth and response schema come from HTTP_OPERATIONS, the table the gateway
 * routes from and the OpenAPI document is built from, so the three cannot disagree.
 */
class XchainClientCore {
  private readonly fetchImpl: typeof fetch;
  private readonly baseUrl: string;

  constructor(readonly options: XchainClientOptions) {
    if (options.fetch && options.localAddress !== undefined)
      throw new TypeError('XchainClient: give either fetch or localAddress, not both');
    // The global fetch is called through a wrapper: a browser refuses `fetch` called as a method of
    // another object ("Illegal invocation"), which `this.fetchImpl(…)` would be.
    this.fetchImpl =
      options.fetch ?? (options.localAddress !== undefined ? fetchFrom(options.localAddress) : (input, init) => fetch(input, init));
    this.baseUrl = gatewayBase(options.baseUrl);
    for (const id of Object.keys(CLIENT_OPERATIONS) as OperationId[]) {
      Object.defineProperty(this, methodName(id), {
        value: async (...args: unknown[]) => (await this.call(id, ...(args as ArgsOf<typeof id>))).data,
        enumerable: false,
      });
    }
  }

  /** Calls an operation by id and returns the whole answer (status, headers, raw body, value). */
  async call<K extends OperationId>(operationId: K, ...args: ArgsOf<K>): Promise<ApiResponse<ResultOf<K>>> {
    const op = OPERATIONS.get(operationId);
    if (!op) throw new TypeError(`${operationId} is not an operation of HTTP_OPERATIONS`);
    const { params, body, options } = splitArgs(op, args as unknown[]);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (op.body) headers['content-type'] = 'application/json';
    const apiKey = options.apiKey ?? this.options.apiKey;
    const session = options.sessionToken ?? this.options.sessionToken;
    if (op.auth === 'optional_api_key' && apiKey !== undefined) headers['x-api-key'] = apiKey;
    if (op.auth === 'bearer' && session !== undefined) headers['authorization'] = `Bearer ${session}`;
    if (options.idempotencyKey !== undefined) {
      if (!op.idempotent) throw new TypeError(`${operationId} takes no idempotency key`);
      headers['idempotency-key'] = options.idempotencyKey;
    }
    Object.assign(headers, options.headers);

    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let res: Response;
    let text: string;
    try {
      res = await this.fetchImpl(`${this.baseUrl}${requestPath(op, params)}`, {
        method: op.method,
        headers,
        signal,
        ...(op.body ? { body: JSON.stringify(body) } : {}),
      });
      text = await res.text();
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (timeout.aborted) throw new XchainTimeoutError(operationId, timeoutMs);
      throw new XchainNetworkError(operationId, err);
    }
    return decode(op, res, text) as ApiResponse<ResultOf<K>>;
  }

  /**
   * ExportPartnerOrders: the partner's orders as a CSV document (the columns of
   * `PARTNER_ORDER_CSV_COLUMNS`), with the session token. `nextCursor` is set when the export was cut
   * at the server's row limit: pass it as `cursor` for the rest. A refusal throws XchainApiError.
   */
  async exportPartnerOrders(
    query: ExportQuery = {},
    options: Omit<CallOptions, 'idempotencyKey' | 'apiKey'> = {},
  ): Promise<{ csv: string; nextCursor?: string }> {
    const op = OPERATIONS.get('ExportPartnerOrders');
    if (!op) throw new TypeError('ExportPartnerOrders is not an operation of HTTP_OPERATIONS');
    const headers: Record<string, string> = { accept: 'text/csv' };
    const session = options.sessionToken ?? this.options.sessionToken;
    if (session !== undefined) headers['authorization'] = `Bearer ${session}`;
    Object.assign(headers, options.headers);
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let res: Response;
    let text: string;
    try {
      res = await this.fetchImpl(`${this.baseUrl}${requestPath(op, query)}`, { method: 'GET', headers, signal });
      text = await res.text();
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (timeout.aborted) throw new XchainTimeoutError(op.operationId, timeoutMs);
      throw new XchainNetworkError(op.operationId, err);
    }
    if (res.status < 200 || res.status > 299) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      const err = XchainApiError.fromBody(op.operationId, res.status, body, res.headers);
      throw err ?? new XchainResponseError(op.operationId, `HTTP ${res.status} without a google.rpc.Status body`, res.status, body);
    }
    if (!(res.headers.get('content-type') ?? '').startsWith('text/csv'))
      throw new XchainResponseError(op.operationId, 'the answer is not text/csv', res.status, text.slice(0, 200));
    const next = res.headers.get('x-next-cursor');
    return { csv: text, ...(next ? { nextCursor: next } : {}) };
  }

  /**
   * StreamOrderEvents (D13): the order's view now, then once per change, until the server ends
   * the stream or `signal` aborts it. `timeoutMs` bounds only the wait for the stream to open.
   * Resume a dropped stream with `lastEventId` set to the last event's id.
   */
  streamOrderEvents(quoteHash: string, options: StreamOptions = {}): AsyncGenerator<OrderEvent, void, undefined> {
    const op = OPERATIONS.get('StreamOrderEvents');
    if (!op) throw new TypeError('StreamOrderEvents is not an operation of HTTP_OPERATIONS');
    const headers: Record<string, string> = {};
    const apiKey = options.apiKey ?? this.options.apiKey;
    if (apiKey !== undefined) headers['x-api-key'] = apiKey;
    if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
    Object.assign(headers, options.headers);
    return readOrderEvents({
      op,
      url: `${this.baseUrl}${requestPath(op, { quote_hash: quoteHash })}`,
      headers,
      openTimeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signal: options.signal,
      fetchImpl: this.fetchImpl,
      ...(options.onOpen ? { onOpen: options.onOpen } : {}),
      ...(options.onComment ? { onComment: options.onComment } : {}),
    });
  }
}

/** The filters of ExportPartnerOrders (`chain`, `status`) and the `cursor` an export cut at its row limit resumes from. */
export type ExportQuery = z.input<typeof PartnerOrdersExportQuery>;

export type XchainClient = XchainClientCore & XchainMethods;
/** A typed client of the public and partner HTTP API (the README's walkthrough uses it; docs/api.md lists the operations). */
export const XchainClient = XchainClientCore as new (options: XchainClientOptions) => XchainClient;

/** The base URL the request paths (`/json/v1/...`) are appended to: without trailing slashes or the `/json/v1` suffix. */
function gatewayBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/json\/v1$/, '');
}

function splitArgs(op: HttpOperation, args: unknown[]): { params: Record<string, unknown>; body: unknown; options: CallOptions } {
  let i = 0;
  const params = op.pathParams || op.query ? ((args[i++] ?? {}) as Record<string, unknown>) : {};
  const body = op.body ? args[i++] : undefined;
  return { params, body, options: (args[i] ?? {}) as CallOptions };
}

/** `/json` + the operation's path with its `{params}` filled in, + the remaining params as the query. */
export function requestPath(op: HttpOperation, params: Record<string, unknown>): string {
  const used = new Set<string>();
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined || v === null) throw new TypeError(`${op.operationId}: path parameter ${name} is missing`);
    used.add(name);
    return encodeURIComponent(String(v));
  });
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (!used.has(k) && v !== undefined && v !== null) query.set(k, String(v));
  }
  const qs = query.toString();
  return `/json${path}${qs ? `?${qs}` : ''}`;
}

function decode(op: HttpOperation, res: Response, text: string): ApiResponse<unknown> {
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new XchainResponseError(
      op.operationId,
      `HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`,
      res.status,
      text,
    );
  }
  if (res.status < 200 || res.status > 299) {
    const err = XchainApiError.fromBody(op.operationId, res.status, body, res.headers);
    throw err ?? new XchainResponseError(op.operationId, `HTTP ${res.status} without a google.rpc.Status body`, res.status, body);
  }
  const parsed = op.response.safeParse(body);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first ? `${first.path.join('.') || '(body)'}: ${first.message}` : 'invalid';
    throw new XchainResponseError(op.operationId, `answer does not match its response schema (${where})`, res.status, body);
  }
  return { status: res.status, headers: res.headers, data: parsed.data, body };
}
