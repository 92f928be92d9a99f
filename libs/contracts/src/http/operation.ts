import type { z } from 'zod';
import type { RpcContract } from '../rpc';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type AuthMode = 'none' | 'optional_api_key' | 'bearer';

/**
 * One public HTTP operation, declared once. The gateway builds its route from this (method, path,
 * access, validation, the RPC it forwards to), the OpenAPI document is generated from it, the typed
 * client's methods are typed from it and the bus permissions include its RPC, so none of them can
 * drift from what is enforced.
 */
export interface HttpOperation {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Path under `/json`, with `{param}` placeholders. */
  readonly path: string;
  readonly summary: string;
  readonly auth: AuthMode;
  readonly tag: string;
  readonly body?: z.ZodType;
  readonly query?: z.ZodObject;
  readonly pathParams?: z.ZodObject;
  readonly response: z.ZodType;
  /**
   * The NATS operation that answers it. Its request is assembled from the path parameters, the
   * query and the body, each parsed with the schema above, merged into one object (an operation
   * with none of them sends `{}`); `defineOperation` checks that this fits the RPC's request and
   * that the RPC's reply fits `response`.
   */
  readonly rpc: RpcContract<z.ZodType, z.ZodType>;
  /** Served by this build; an unserved operation answers UNIMPLEMENTED. */
  readonly served: boolean;
  /** Rate-limit points one call costs (decisions D10); 1 when absent. */
  readonly points?: number;
  /** Longer description for the API document. */
  readonly description?: string;
  /** Supports ETag / If-None-Match. */
  readonly cacheable?: boolean;
  /**
   * Takes an `Idempotency-Key` header: the same key with the same body answers as the first request
   * did (for 24 h), with another body 409 IDEMPOTENCY_KEY_REUSED, while the first still runs 409
   * IDEMPOTENCY_REQUEST_IN_PROGRESS with Retry-After (docs/integrators.md, Idempotency).
   */
  readonly idempotent?: boolean;
  /** Answers a `text/event-stream` whose events carry `response` as data (server-sent events). */
  readonly eventStream?: boolean;
  /** Answers `text/csv`: the gateway streams the RPC's pages of rows (`response`) as CSV. */
  readonly csv?: boolean;
}

type Parsed<O, F extends string> = O extends { readonly [P in F]: infer S extends z.ZodType } ? z.output<S> : Record<never, never>;
/** The RPC request the gateway assembles for an operation: its parsed path parameters, query and body, merged. */
export type AssembledRequest<O> = Parsed<O, 'pathParams'> & Parsed<O, 'query'> & Parsed<O, 'body'>;

/** Nothing more to ask of an operation whose RPC fits it; else a property no declaration can satisfy, naming what is wrong. */
type Fits<O extends Omit<HttpOperation, 'served'>> =
  AssembledRequest<O> extends z.input<O['rpc']['request']>
    ? z.output<O['rpc']['response']> extends z.output<O['response']>
      ? unknown
      : { readonly response: `the reply of ${O['rpc']['subject']} does not fit this response` }
    : { readonly rpc: `the request of ${O['rpc']['subject']} cannot be assembled from the path parameters, query and body` };

/**
 * Declares an operation of the table, keeping its own schema types (the typed client is derived
 * from them) and checking that its RPC fits it.
 */
export function defineOperation<const O extends Omit<HttpOperation, 'served'> & { readonly served?: boolean }>(
  op: O & Fits<O>,
): O & { readonly served: boolean } {
  return { ...op, served: op.served ?? true };
}
