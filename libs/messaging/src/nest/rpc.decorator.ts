import { applyDecorators, UseFilters, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import type { RpcAccess, RpcContract } from '@xchain/contracts';
import type { z } from 'zod';
import { authorize, NatsRpcContext, type RpcContextFor } from './rpc-context';
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
 */
export function Rpc<Req extends z.ZodType, Res extends z.ZodType, A extends RpcAccess>(contract: RpcContract<Req, Res, A>) {
  const decorate = applyDecorators(MessagePattern(contract.subject, { contract }), UseGuards(accessGuard), UseFilters(statusFilter));
  return <M extends RpcMethod<Req, Res, A>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>): void => {
    decorate(target, key, descriptor);
    // The request is the first argument and the context the second, as the transport delivers them.
    Payload()(target, key, 0);
    Ctx()(target, key, 1);
  };
}

/** The request a handler of contract `C` receives: already parsed by the contract's schema. */
export type RpcBody<C> = C extends RpcContract<infer Req, z.ZodType> ? z.output<Req> : never;

/** The context a handler of contract `C` receives: with the session's partner for a `partner` operation. */
export type RpcCtx<C> = C extends RpcContract<z.ZodType, z.ZodType, infer A> ? RpcContextFor<A> : never;
