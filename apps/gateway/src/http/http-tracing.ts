import { AsyncResource } from 'node:async_hooks';
import type { Socket } from 'node:net';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Context, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

const tracer = trace.getTracer('@xchain/gateway-http');

/** Probes and metric scrapes are noise in traces: they get no span and no context. */
const UNTRACED = new Set(['/livez', '/readyz', '/metrics']);

interface RequestTrace {
  span: Span;
  ctx: Context;
}

/**
 * Where a request keeps its span and context: a property of the request itself, declared with
 * `decorateRequest`. Not a WeakMap keyed by the request: the WeakMap lives in old space, and young
 * GCs kept its entries' values (every request's span and context) until a full GC, so they were
 * promoted. Measured (scratch, README "Open-loop p99"): at 2,000 PreviewQuote/s the gateway
 * promoted 25.5 to 26.9 MB in 10 s with the WeakMap and 17.8 to 18.0 MB with the property (three
 * runs each). Why V8 keeps them is not traced further.
 */
const TRACE = Symbol('xchain.httpTrace');
type Traced = FastifyRequest & { [TRACE]?: RequestTrace | null };

/**
 * The gateway's HTTP server span, made in Fastify's hooks instead of by OpenTelemetry's
 * HttpInstrumentation (which the gateway does not load: see `startTelemetry`). Per request it
 * reads the caller's W3C `traceparent`/`tracestate`, starts one SERVER span under it, and makes
 * that span the active context for every later hook, the route handler (so the NATS client's
 * spans and headers carry it, decisions D2) and the access log.
 *
 * Why not the instrumentation: it wraps every request and response emitter and builds its
 * attributes even for spans that are never recorded, which cost the quote path a measurable share
 * (docs/benchmarks.md, "Settings chosen by measurement").
 *
 * How the context is kept: a callback-style hook that calls `done` inside `context.with` runs the
 * rest of the request (later hooks, the body read, which Fastify binds to the context it started
 * in, the handler and their promises) in that context. `onResponse` runs from the response's
 * finish event, so it enters the context again for the access log after it.
 *
 * Must be installed before any other hook that logs or calls the bus.
 */
export function installHttpTracing(fastify: FastifyInstance): void {
  fastify.server.on('connection', armTimersOutsideRequests);
  fastify.decorateRequest(TRACE, null);
  fastify.addHook('onRequest', (req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const path = pathOf(req.url);
    if (UNTRACED.has(path)) return done();
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const route = req.routeOptions.url;
    const span = tracer.startSpan(route ? `${req.method} ${route}` : req.method, { kind: SpanKind.SERVER }, parent);
    if (span.isRecording()) {
      span.setAttributes({
        'http.request.method': req.method,
        'url.path': path,
        'url.scheme': req.protocol,
        ...(route ? { 'http.route': route } : {}),
        'client.address': req.ip,
        ...(req.headers['user-agent'] ? { 'user_agent.original': req.headers['user-agent'] } : {}),
      });
    }
    const ctx = trace.setSpan(parent, span);
    (req as Traced)[TRACE] = { span, ctx };
    context.with(ctx, done);
  });

  fastify.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const t = (req as Traced)[TRACE];
    if (t) {
      const status = reply.statusCode;
      t.span.setAttribute('http.response.status_code', status);
      // Server spans are errors only for 5xx: a 4xx is the caller's mistake, answered correctly.
      if (status >= 500) t.span.setStatus({ code: SpanStatusCode.ERROR });
      t.span.end();
    }
    enter(req, done);
  });

  // The client went away before the answer: end the span rather than leave it open.
  fastify.addHook('onRequestAbort', (req: FastifyRequest, done: HookHandlerDoneFunction) => {
    const t = (req as Traced)[TRACE];
    if (t) {
      t.span.setAttribute('http.request.aborted', true);
      t.span.setStatus({ code: SpanStatusCode.ERROR, message: 'client aborted the request' });
      t.span.end();
    }
    enter(req, done);
  });
}

/**
 * Arms a connection's timers in the context the connection was accepted in, not in a request's.
 * Node arms the keep-alive timer (`socket.setTimeout`) as each answer finishes, so inside the
 * context `context.with` gave the request, and a timer keeps the context it was made in until it is
 * cleared. A connection that then stayed idle held its last request's context (and span) until its
 * next request or the timer's end, long enough for young GCs to promote them to the old generation,
 * where only a full GC frees them; clients with pools of idle keep-alive connections do this all
 * the time. Measured (scratch, the gateway's `--trace-gc-nvp`, 8 s open loops, two runs each,
 * 2026-11-26): ListTokens at 12,000/s promoted 9.8 and 10.0 MB before, 4.9 and 4.9 MB with this
 * (4.5 MB with no keep-alive timer at all); PreviewQuote at 4,500/s 1.9 and 2.1 MB before, 1.6 and
 * 1.6 MB with this. The timer's callback only closes the idle socket: it needs no request's
 * context.
 */
function armTimersOutsideRequests(socket: Socket): void {
  const outside = new AsyncResource('xchain.connection');
  const setTimeout = socket.setTimeout;
  // 0 only clears the timer (Node does so as each request arrives): that makes none to keep a context.
  socket.setTimeout = (msecs: number, callback?: () => void) =>
    msecs === 0 ? setTimeout.call(socket, msecs, callback) : outside.runInAsyncScope(setTimeout, socket, msecs, callback);
}

function enter(req: FastifyRequest, done: HookHandlerDoneFunction): void {
  const t = (req as Traced)[TRACE];
  if (t) context.with(t.ctx, done);
  else done();
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}
