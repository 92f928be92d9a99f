import type { z } from 'zod';

/** The services that connect to NATS, each as its own NATS user (D14). */
export const SERVICE_NAMES = ['gateway', 'quote-engine', 'price-oracle', 'gasless-relayer', 'partner-service'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * Who may call an operation — declared here, once, on its contract; the bus permissions are
 * generated from it (`busPermissions`) and the RPC server checks it (one place).
 * - `public`: the gateway, for any client (keyless or with an API key);
 * - `partner`: the gateway, for a partner session (the operation acts for that partner only);
 * - `internal`: the named services, service to service;
 * - `operator`: the operator's tool (`partner-admin`), never the gateway.
 * `alsoCalledBy` lets services call a public operation for themselves (e.g. the token list).
 */
export type RpcAccess =
  | { readonly access: 'public'; readonly alsoCalledBy?: readonly ServiceName[] }
  | { readonly access: 'partner' }
  | { readonly access: 'internal'; readonly callers: readonly ServiceName[] }
  | { readonly access: 'operator' };

/**
 * One NATS request/reply operation: its versioned subject, both schemas and who may call it. Both
 * ends validate with the same schemas, so a drifting peer is caught at the boundary, not deep in a handler.
 */
export interface RpcContract<Req extends z.ZodType, Res extends z.ZodType, A extends RpcAccess = RpcAccess> {
  readonly subject: string;
  readonly request: Req;
  readonly response: Res;
  readonly access: A;
}

export function defineRpc<Req extends z.ZodType, Res extends z.ZodType, const A extends RpcAccess>(
  subject: string,
  request: Req,
  response: Res,
  access: A,
): RpcContract<Req, Res, A> {
  if (!/^[a-z-]+\.v[0-9]+\.[a-z_.]+$/.test(subject)) {
    throw new Error(`subject ${subject} is not <domain>.v<N>.<operation>`);
  }
  if (access.access === 'internal' && access.callers.length === 0) {
    throw new Error(`internal operation ${subject} names no caller`);
  }
  return { subject, request, response, access };
}

export type RpcRequest<C> = C extends RpcContract<infer Req, z.ZodType> ? z.input<Req> : never;
export type RpcResponse<C> = C extends RpcContract<z.ZodType, infer Res> ? z.output<Res> : never;

/** A NATS reply is one of these two JSON shapes. */
export type RpcEnvelope<T> = { ok: T } | { error: import('./status').Status };
