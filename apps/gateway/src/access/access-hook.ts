import { HTTP_OPERATIONS, RpcError } from '@xchain/contracts';
import type { Logger } from '@xchain/telemetry';
import type { FastifyInstance } from 'fastify';
import { declareCaller, setCaller } from '../http/caller';
import { routeOf } from '../http/route-of';
import { sendStatus } from '../http/status-reply';
import { rateLimitHeaders } from '../limits/rate-limit-headers';
import type { AccessControl } from './access-control';

/**
 * Runs the access check on every served operation in `onRequest`, before the body is read, so a
 * refused or rate-limited call costs no parsing and reaches no service. Every checked response,
 * refused or not, carries the RateLimit-* headers of the caller's budget.
 */
export function installAccessHook(fastify: FastifyInstance, access: AccessControl, log: Logger): void {
  const ops = new Map(HTTP_OPERATIONS.filter((o) => o.served).map((o) => [`${o.method} ${routeOf(o)}`, o]));
  declareCaller(fastify);
  fastify.addHook('onRequest', async (req, reply) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const op = ops.get(`${method} ${req.routeOptions.url ?? ''}`);
    if (!op) return;
    const apiKey = req.headers['x-api-key'];
    let admission;
    try {
      admission = await access.admit(op, {
        ip: req.ip,
        apiKey: Array.isArray(apiKey) ? apiKey[0] : apiKey,
        authorization: req.headers.authorization,
      });
    } catch (err) {
      // The partner-service is unavailable or late: 503/504 as it reported, never a silent pass.
      const status = err instanceof RpcError ? err : RpcError.internal();
      if (!(err instanceof RpcError)) log.error({ err: err instanceof Error ? err.message : String(err) }, 'access check failed');
      await sendStatus(reply, status.status);
      return reply;
    }
    if (admission.limit) reply.headers(rateLimitHeaders(admission.limit));
    if (!admission.ok) {
      await sendStatus(reply, admission.status.status);
      return reply;
    }
    setCaller(req, admission.caller);
    return undefined;
  });
}
