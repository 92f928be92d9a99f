import { type Socket, connect } from 'node:net';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { installHttpTracing } from './http-tracing';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

/** The trace a callback runs under, or 'none'. */
const activeTrace = () => trace.getSpanContext(context.active())?.traceId ?? 'none';

describe('installHttpTracing', () => {
  let f: FastifyInstance | undefined;
  const manager = new AsyncLocalStorageContextManager();

  beforeAll(() => {
    context.setGlobalContextManager(manager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(() => {
    context.disable();
    propagation.disable();
  });
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });

  it("runs the handler in the caller's trace, and arms the connection's keep-alive timer outside it", async () => {
    f = Fastify();
    installHttpTracing(f);
    let inHandler = '';
    f.get('/x', async () => {
      inHandler = activeTrace();
      return { ok: true };
    });
    // Node arms this timer as each answer finishes (for this plus a second); when it fires, the idle
    // connection is closed.
    f.server.keepAliveTimeout = 100;
    const timedOut = new Promise<string>((resolve) =>
      f!.server.on('connection', (s: Socket) => s.once('timeout', () => resolve(activeTrace()))),
    );
    const base = await f.listen({ port: 0, host: '127.0.0.1' });

    // A raw client that keeps the connection open and idle (Node's own agent closes it first).
    const { port } = new URL(base);
    const client = connect(Number(port), '127.0.0.1');
    const status = await new Promise<number>((resolve, reject) => {
      let head = '';
      client.on('data', (d) => {
        head += d.toString('latin1');
        if (head.includes('\r\n\r\n')) resolve(Number(head.split(' ')[1]));
      });
      client.on('error', reject);
      client.write(`GET /x HTTP/1.1\r\nhost: localhost\r\ntraceparent: ${TRACEPARENT}\r\n\r\n`);
    });

    expect(status).toBe(200);
    expect(inHandler).toBe(TRACE_ID);
    // The timer fired with no request's context: an idle connection holds none of it.
    expect(await timedOut).toBe('none');
    client.destroy();
  });
});
