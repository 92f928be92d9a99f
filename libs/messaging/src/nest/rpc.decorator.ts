import { applyDecorators, UseFilters, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
  SCOPE_OPTIONS_METADATA,
} from '@nestjs/common/constants';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import type { RpcAccess, RpcContract } from '@xchain/contracts';
import type { z } from 'zod';
import { authorize, NatsRpcContext, type DirectMethod, type RpcContextFor } from './rpc-context';
import { RpcStatusFilter } from './rpc-status.filter';

/**
 * Runs before every `@Rpc` handler: the contract's declared access, checked by `authorize` (D14).
 * It throws the RpcError itself, so the caller sees UNAUTHENTICATED / SESSION_REQUIRED rather
 * than Nest's generic "Forbidden resource".
 */
export class ContractAccessGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const ctx = context.switchToRpc().getContext<unknown>();
    if (!(ctx instanceof NatsRpcContext)) return false;
    authorize(ctx);
    return true;
  }
}

const accessGuard = new ContractAccessGuard();
const statusFilter = new RpcStatusFilter();

/** The shape of a method bound to a contract: its validated request, its context, its reply (checked against the contract). */
export type RpcMethod<Req extends z.ZodType, Res extends z.ZodType, A extends RpcAccess> = (
  request: z.output<Req>,
  ctx: RpcContextFor<A>,
) => Promise<z.input<Res>> | z.input<Res>;

/**
 * Binds a controller method to an RPC contract: it serves the contract's subject on the NATS
 * transport (`RpcServer`), receives the request already validated by the contract's schema and the
 * request context, and TypeScript checks its reply type against the contract. Every such method
 * passes the access guard and the status filter, so "who may call" is enforced in one place and
 * every failure leaves as a google.rpc.Status; further guards, interceptors, pipes and filters apply
 * as to any Nest handler.
 *
 * A method to which Nest adds nothing else (`servedAlone`) is called by the transport itself after
 * its first request: that request goes through Nest's pipeline, which hands the method, bound to
 * its controller, to the transport (`NatsRpcContext.direct`); later ones skip the pipeline (guard,
 * filter and argument resolution on every request) and run the same access check (`authorize`).
 */
export function Rpc<Req extends z.ZodType, Res extends z.ZodType, A extends RpcAccess>(contract: RpcContract<Req, Res, A>) {
  const decorate = applyDecorators(MessagePattern(contract.subject, { contract }), UseGuards(accessGuard), UseFilters(statusFilter));
  return <M extends RpcMethod<Req, Res, A>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>): void => {
    const method = descriptor.value as unknown as DirectMethod;
    let alone: boolean | undefined;
    const offered = function (this: object, request: unknown, ctx: unknown): unknown {
      // Whether Nest adds anything is known once every decorator of the class has run: at the first call.
      alone ??= servedAlone(target, key);
      if (alone && ctx instanceof NatsRpcContext) ctx.direct = method.bind(this);
      return method.call(this, request, ctx as NatsRpcContext);
    };
    // Decorators listed below this one attached their metadata to the method itself.
    for (const k of Reflect.getMetadataKeys(method)) Reflect.defineMetadata(k, Reflect.getMetadata(k, method), offered);
    descriptor.value = offered as unknown as M;
    decorate(target, key, descriptor);
    // The request is the first argument and the context the second, as the transport delivers them.
    Payload()(target, key, 0);
    Ctx()(target, key, 1);
  };
}

/**
 * Whether Nest's pipeline would do nothing for this method beyond `Rpc`'s own guard (whose check
 * the transport runs as `authorize`) and status filter (which passes every failure on unchanged):
 * no further guard, interceptor, pipe or filter on the method or its class, no argument but the
 * request and the context, and one controller instance (the default scope). Global enhancers
 * (`APP_GUARD`, `useGlobalInterceptors`…) are not seen here: the services register none for RPCs.
 */
function servedAlone(target: object, key: string | symbol): boolean {
  const method = (target as Record<string | symbol, unknown>)[key] as object;
  const cls = target.constructor;
  const list = (meta: string, on: object): unknown[] => (Reflect.getMetadata(meta, on) as unknown[] | undefined) ?? [];
  const only = (meta: string, ours: unknown) => {
    const attached = list(meta, method);
    return attached.length === 1 && attached[0] === ours && list(meta, cls).length === 0;
  };
  const none = (meta: string) => list(meta, method).length === 0 && list(meta, cls).length === 0;
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, cls, key) as object | undefined) ?? {};
  return (
    only(GUARDS_METADATA, accessGuard) &&
    only(EXCEPTION_FILTERS_METADATA, statusFilter) &&
    none(INTERCEPTORS_METADATA) &&
    none(PIPES_METADATA) &&
    Object.keys(args).length === 2 &&
    Reflect.getMetadata(SCOPE_OPTIONS_METADATA, cls) === undefined
  );
}

/** The request a handler of contract `C` receives: already parsed by the contract's schema. */
export type RpcBody<C> = C extends RpcContract<infer Req, z.ZodType> ? z.output<Req> : never;

/** The context a handler of contract `C` receives: with the session's partner for a `partner` operation. */
export type RpcCtx<C> = C extends RpcContract<z.ZodType, z.ZodType, infer A> ? RpcContextFor<A> : never;
