import type { z } from 'zod';

/**
 * One NATS request/reply operation: its versioned subject and both schemas. Both ends validate
 * with the same schemas, so a drifting peer is caught at the boundary, not deep in a handler.
 */
export interface RpcContract<Req extends z.ZodType, Res extends z.ZodType> {
  readonly subject: string;
  readonly request: Req;
  readonly response: Res;
}

export function defineRpc<Req extends z.ZodType, Res extends z.ZodType>(
  subject: string,
  request: Req,
  response: Res,
): RpcContract<Req, Res> {
  if (!/^[a-z-]+\.v[0-9]+\.[a-z_.]+$/.test(subject)) {
    throw new Error(`subject ${subject} is not <domain>.v<N>.<operation>`);
  }
  return { subject, request, response };
}

export type RpcRequest<C> = C extends RpcContract<infer Req, z.ZodType> ? z.input<Req> : never;
export type RpcResponse<C> = C extends RpcContract<z.ZodType, infer Res> ? z.output<Res> : never;

/** A NATS reply is one of these two JSON shapes. */
export type RpcEnvelope<T> = { ok: T } | { error: import('./status').Status };
