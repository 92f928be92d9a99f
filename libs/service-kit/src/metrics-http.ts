import type { FastifyInstance, FastifyRequest } from 'fastify';
import { METRICS_PATH, type Metrics } from './metrics';

/** Label of a request no route matched (404s of any path): one series, however many paths are tried. */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The route label of a request: the pattern that matched (`/json/v1/orders/:quote_hash`), never the
 * raw URL, so the number of series is bounded by the routes the service declares, not by what
 * clients send.
 */
export function routeLabel(req: Pick<FastifyRequest, 'routeOptions'>): string {
  return req.routeOptions.url ?? UNMATCHED_ROUTE;
}

export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'OTHER';
}

/**
 * Counts every answered request and its latency by method, route pattern and status
 * (`http_requests_total`, `http_request_duration_seconds`), refusals and 404s included.
 */
export function installHttpMetrics(fastify: FastifyInstance, metrics: Metrics): void {
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = metrics.counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames,
  });
  const duration = metrics.histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to its answer, by method, route pattern and status',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  // Synchronous (it calls `done`): an async hook costs Fastify a promise and a microtask per request.
  fastify.addHook('onResponse', (req, reply, done) => {
    const labels = { method: methodLabel(req.method), route: routeLabel(req), status: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}

/**
 * `GET /metrics` in the Prometheus text format. A plain Fastify route beside Nest's, so it is no
 * operation of the public API: not in the OpenAPI document, not authenticated or rate limited. In
 * production it is reached in-cluster only (the pods' NetworkPolicy), never through the ingress.
 */
export function serveMetrics(fastify: FastifyInstance, metrics: Metrics): void {
  fastify.get(METRICS_PATH, async (_req, reply) => {
    const body = await metrics.render();
    return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(body);
  });
}
