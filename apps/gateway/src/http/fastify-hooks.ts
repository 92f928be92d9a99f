import { randomBytes } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import type { Logger } from '@xchain/telemetry';
import type { FastifyInstance } from 'fastify';
import { httpErrors, sendStatus } from './status-reply';

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

  // A NUL character is valid JSON and a valid URL escape, but no field of ours can hold one (and
  // PostgreSQL text cannot store one): refuse it here, naming the field, before any service sees it.
  fastify.addHook('preValidation', async (req, reply) => {
    const field = nulField(req.params) ?? nulField(req.query) ?? nulField(req.body);
    if (field !== undefined) return sendStatus(reply, httpErrors.nulCharacter(field));
  });

  // One access-log line per request; the logger adds the trace id from the active span.
  fastify.addHook('onResponse', async (req, reply) => {
    log.info(
      { method: req.method, path: req.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });
}

/**
 * The dotted name (`referrers[0].address`) of the first string or key holding U+0000, if any.
 * Iterative: a 64 KiB body can nest tens of thousands of levels deep.
 */
export function nulField(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return at || '(body)';
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        const here = Array.isArray(v) ? `${at}[${k}]` : at ? `${at}.${k}` : k;
        if (k.includes('\u0000')) return here;
        stack.push([child, here]);
      }
    }
  }
  return undefined;
}
