import type { CallerContext } from '@xchain/contracts';
import type { FastifyRequest } from 'fastify';

const callers = new WeakMap<FastifyRequest, CallerContext>();

/** Set once per request by the access hook, after the credential was checked. */
export function setCaller(req: FastifyRequest, caller: CallerContext): void {
  callers.set(req, caller);
}

/** The caller the access hook established; keyless when the route has no access check. */
export function callerOf(req: FastifyRequest): CallerContext {
  return callers.get(req) ?? { kind: 'keyless', client_ip: req.ip };
}
