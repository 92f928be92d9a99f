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
  // An empty body is no body, whatever its content type: many HTTP clients send
  // `content-type: application/json` on every request, a DELETE or a bodyless POST included. Fastify's
  // own parser (kept for everything else, with its prototype-poisoning checks) refuses it as malformed.
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser<string>('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body.length === 0) return done(null, undefined);
    parseJson(req, body, done);
  });

  // The hooks below are synchronous (they call `done`), not async: an async hook costs Fastify a
  // promise and a turn of the microtask queue per request, and these do nothing that waits.
  fastify.addHook('onRequest', (_req, reply, done) => {
    const span = trace.getActiveSpan()?.spanContext();
    const valid = span !== undefined && span.traceId !== INVALID_TRACE;
    reply.header('x-request-id', valid ? span.traceId : randomBytes(16).toString('hex'));
    if (valid) reply.header('traceparent', `00-${span.traceId}-${span.spanId}-0${span.traceFlags}`);
    done();
  });

  // A NUL character is valid JSON and a valid URL escape, but no field of ours can hold one (and
  // PostgreSQL text cannot store one): refuse it here, naming the field, before any service sees it.
  fastify.addHook('preValidation', (req, reply, done) => {
    const field = nulField(req.params) ?? nulField(req.query) ?? nulField(req.body);
    if (field === undefined) return done();
    // Answered here: Fastify runs no later hook or handler for a reply sent without `done`.
    sendStatus(reply, httpErrors.nulCharacter(field));
  });

  // One access-log line per request; the logger adds the trace id from the active span. Nothing is
  // built for it when the level leaves it out.
  fastify.addHook('onResponse', (req, reply, done) => {
    if (log.isLevelEnabled('info')) {
      log.info({ method: req.method, path: req.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    }
    done();
  });
}

/**
 * The dotted name (`referrers[0].address`) of the first string or key holding U+0000, if any.
 * Nearly every body holds none: that is checked first by a walk that builds no names, and only a
 * body that holds one is walked again to name it. Both walks are iterative: a 64 KiB body can nest
 * tens of thousands of levels deep.
 */
export function nulField(value: unknown): string | undefined {
  return holdsNul(value) ? firstNulField(value) : undefined;
}

/** Whether any string or key in `value` holds U+0000 (own enumerable keys, as `Object.entries` sees). */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (nulOrPush(v[i], stack)) return true;
    } else {
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        if (k.includes('\u0000') || nulOrPush((v as Record<string, unknown>)[k], stack)) return true;
      }
    }
  }
  return false;
}

/** True for a string holding U+0000; an object or array is pushed to be walked. */
function nulOrPush(child: unknown, stack: object[]): boolean {
  if (typeof child === 'string') return child.includes('\u0000');
  if (child !== null && typeof child === 'object') stack.push(child);
  return false;
}

/** The walk that names the field, in document order. */
function firstNulField(value: unknown): string | undefined {
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
