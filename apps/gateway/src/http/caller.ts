import type { CallerContext } from '@xchain/contracts';
import type { FastifyRequest } from 'fastify';

/** The caller as the gateway sees it. API keys and sessions arrive with the partners issue. */
export function callerOf(req: FastifyRequest): CallerContext {
  return { kind: 'keyless', client_ip: req.ip };
}
