import type { CallerContext } from '@xchain/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The caller is a property of the request (declared by `declareCaller`), not an entry of a WeakMap
 * keyed by the request: see http-tracing.ts for what a per-request WeakMap cost in old-space
 * promotion.
 */
const CALLER = Symbol('xchain.caller');
type WithCaller = FastifyRequest & { [CALLER]?: CallerContext | null };

/** Declares the request property the access hook sets; once per Fastify instance, before it starts. */
export function declareCaller(fastify: FastifyInstance): void {
  fastify.decorateRequest(CALLER, null);
}

/** Set once per request by the access hook, after the credential was checked. */
export function setCaller(req: FastifyRequest, caller: CallerContext): void {
  (req as WithCaller)[CALLER] = caller;
}

/** The caller the access hook established; keyless when the route has no access check. */
export function callerOf(req: FastifyRequest): CallerContext {
  return (req as WithCaller)[CALLER] ?? { kind: 'keyless', client_ip: req.ip };
}
