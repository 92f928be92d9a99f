import type { FastifyInstance } from 'fastify';

const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, DELETE';
const ALLOWED_HEADERS = 'content-type, authorization, x-api-key, if-none-match, traceparent, idempotency-key';
/** What a browser client may read: the trace id to quote to support, the ETag, the rate-limit state, whether an answer is a replay, and where a CSV export resumes. */
const EXPOSED_HEADERS =
  'x-request-id, traceparent, etag, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, idempotent-replayed, x-next-cursor';
const PREFLIGHT_MAX_AGE_SECS = '600';

/**
 * CORS for wallets and dApps that call the API from a browser. It runs first among the hooks, so
 * refusals (401, 429) carry the headers too and the browser shows the error body instead of an
 * opaque network failure. A preflight is answered here: it is not an operation, so it is neither
 * authenticated nor counted against a rate limit. No cookies are used, so credentials stay off.
 */
export function installCors(fastify: FastifyInstance, allowedOrigins: string[]): void {
  if (allowedOrigins.length === 0) return;
  const any = allowedOrigins.includes('*');
  const allowed = new Set(allowedOrigins);
  fastify.addHook('onRequest', async (req, reply) => {
    const origin = req.headers.origin;
    if (origin === undefined) return undefined;
    if (!any) reply.header('vary', 'origin');
    if (!any && !allowed.has(origin)) return undefined;
    reply.header('access-control-allow-origin', any ? '*' : origin);
    reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      reply.header('access-control-allow-methods', ALLOWED_METHODS);
      reply.header('access-control-allow-headers', ALLOWED_HEADERS);
      reply.header('access-control-max-age', PREFLIGHT_MAX_AGE_SECS);
      await reply.status(204).send();
      return reply;
    }
    return undefined;
  });
}
