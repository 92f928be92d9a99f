import { randomBytes } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import type { Logger } from '@xchain/telemetry';
import type { FastifyInstance } from 'fastify';

const INVALID_TRACE = '00000000000000000000000000000000';

/**
 * Fastify-level behaviour around Nest's handlers: JSON-only bodies, the trace id on every
 * response as `x-request-id` and `traceparent` (decisions D2), so a user can quote it to support,
 * and an access log.
 */
export function installHttpHooks(fastify: FastifyInstance, log: Logger): void {
  // JSON only: without this Fastify would also accept text/plain bodies.
  fastify.removeContentTypeParser('text/plain');

  fastify.addHook('onRequest', async (_req, reply) => {
    const span = trace.getActiveSpan()?.spanContext();
    const valid = span !== undefined && span.traceId !== INVALID_TRACE;
    reply.header('x-request-id', valid ? span.traceId : randomBytes(16).toString('hex'));
    if (valid) reply.header('traceparent', `00-${span.traceId}-${span.spanId}-0${span.traceFlags}`);
  });

  // One access-log line per request; the logger adds the trace id from the active span.
  fastify.addHook('onResponse', async (req, reply) => {
    log.info(
      { method: req.method, path: req.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });
}
