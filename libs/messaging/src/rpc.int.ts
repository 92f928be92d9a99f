import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_CONTEXT, SpanKind, TraceFlags, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { CALLER_HEADER, Code, RpcError, defineRpc } from '@xchain/contracts';
import { freePort, newBus, startNats, type Managed } from '@xchain/stack';
import pino from 'pino';
import { z } from 'zod';
import { headers } from '@nats-io/transport-node';
import { connectNats, type NatsConnection } from './connection';
import { RpcClient } from './rpc-client';
import { RpcServer } from './rpc-server';

const PUBLIC = { access: 'public' } as const;
const Echo = defineRpc('test.v1.echo', z.object({ text: z.string().min(1) }), z.object({ text: z.string() }), PUBLIC);
const Broken = defineRpc('test.v1.broken', z.object({}), z.object({ n: z.number() }), PUBLIC);
const Nobody = defineRpc('test.v1.nobody', z.object({}), z.object({}), PUBLIC);
const Mine = defineRpc('test.v1.mine', z.object({}), z.object({ partner: z.string() }), { access: 'partner' });
const Forbidden = defineRpc('test.v1.forbidden', z.object({}), z.object({}), PUBLIC);
/** A wire-stable reply (forwarded as bytes) and one whose schema transforms (parsed, then serialised). */
const Shaped = defineRpc(
  'test.v1.shaped',
  z.object({}),
  z.object({ a: z.string(), b: z.object({ c: z.number().optional(), d: z.boolean() }) }),
  PUBLIC,
);
/** Answers the trace context its handler runs in. */
const Traced = defineRpc(
  'test.v1.traced',
  z.object({}),
  z.object({ trace_id: z.string(), span_id: z.string(), flags: z.number() }),
  PUBLIC,
);
const Counted = defineRpc('test.v1.counted', z.object({}), z.object({ n: z.string().transform((s) => s.length) }), PUBLIC);

/** The two ends as users of an authorised bus: the client may call test.v1.* but not test.v1.forbidden. */
const bus = newBus({
  'test-server': { subscribe: ['test.v1.>'], allowResponses: true },
  'test-client': {
    publish: [
      'test.v1.echo',
      'test.v1.broken',
      'test.v1.nobody',
      'test.v1.silent',
      'test.v1.mine',
      'test.v1.late',
      'test.v1.shaped',
      'test.v1.counted',
      'test.v1.traced',
    ],
  },
});

describe('RPC over a real NATS server', () => {
  const exporter = new InMemorySpanExporter();
  let provider: TracerProvider;
  let nats: Managed;
  let dir: string;
  let serverConn: NatsConnection;
  let clientConn: NatsConnection;
  let client: RpcClient;
  let lateClient: RpcClient;
  let natsUrl: string;

  beforeAll(async () => {
    provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    dir = mkdtempSync(join(tmpdir(), 'nats-'));
    const [port, monitor] = [await freePort(), await freePort()];
    nats = await startNats(dir, port, monitor, join(dir, 'nats.log'), bus.users);
    const url = `nats://127.0.0.1:${port}`;
    natsUrl = url;
    serverConn = await connectNats({ url, name: 'server', connectTimeoutMs: 2000, ...bus.credentials('test-server') });
    clientConn = await connectNats({ url, name: 'client', connectTimeoutMs: 2000, ...bus.credentials('test-client') });
    const server = new RpcServer(serverConn, 'test', pino({ level: 'silent' }));
    server.handle(Echo, async (req, ctx) => ({ text: `${req.text}:${ctx.caller?.kind ?? 'none'}` }));
    server.handle(Broken, async () => ({ n: 'not a number' }) as unknown as { n: number });
    server.handle(Mine, async (_req, ctx) => ({ partner: ctx.session.partnerId }));
    server.handle(Forbidden, async () => ({}));
    // Keys out of the schema's order, and one the contract does not name.
    server.handle(
      Shaped,
      async () => ({ secret: 'internal', b: { d: true, hidden: 1 }, a: 'x' }) as unknown as { a: string; b: { d: boolean } },
    );
    server.handle(Counted, async () => ({ n: 'abc' }));
    server.handle(Traced, async () => {
      const sc = trace.getActiveSpan()?.spanContext();
      return { trace_id: sc?.traceId ?? '', span_id: sc?.spanId ?? '', flags: sc?.traceFlags ?? -1 };
    });
    await serverConn.flush();
    client = new RpcClient(clientConn, 1000);
    lateClient = new RpcClient(clientConn, 1000);
  });

  afterAll(async () => {
    await clientConn?.close();
    await serverConn?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => exporter.reset());

  it('round-trips a validated request and passes the caller context', async () => {
    await expect(client.call(Echo, { text: 'hi' }, { caller: { kind: 'keyless', client_ip: '127.0.0.1' } })).resolves.toEqual({
      text: 'hi:keyless',
    });
  });

  it('rejects an invalid request at the server with INVALID_ARGUMENT naming the field', async () => {
    const err = await client.call(Echo, { text: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    const status = (err as RpcError).status;
    expect(status.code).toBe(Code.INVALID_ARGUMENT);
    expect(status.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field_violations: [expect.objectContaining({ field: 'text' })] })]),
    );
  });

  it('turns a reply that breaks the contract into INTERNAL without leaking it', async () => {
    const err = (await client.call(Broken, {}).catch((e: unknown) => e)) as RpcError;
    expect(err.status).toMatchObject({ code: Code.INTERNAL, message: 'internal error' });
  });

  it('forwards a wire-stable reply as the bytes the server validated: unnamed keys dropped, in the schema’s order', async () => {
    const bytes = await client.forward(Shaped, {});
    expect(bytes.toString()).toBe('{"a":"x","b":{"d":true}}');
    await expect(client.call(Shaped, {})).resolves.toEqual(JSON.parse(bytes.toString()));
  });

  it('forwards a reply whose schema transforms as the parsed value, serialised', async () => {
    expect((await client.forward(Counted, {})).toString()).toBe('{"n":3}');
  });

  it('fails a forwarded call as it fails a call: the server’s refusal, a contract-breaking reply, no responders', async () => {
    await expect(client.forward(Echo, { text: '' })).rejects.toMatchObject({ status: { code: Code.INVALID_ARGUMENT } });
    await expect(client.forward(Broken, {})).rejects.toMatchObject({ status: { code: Code.INTERNAL, message: 'internal error' } });
    await expect(client.forward(Nobody, {})).rejects.toMatchObject({ status: { code: Code.UNAVAILABLE } });
  });

  it('answers UNAVAILABLE at once when nobody serves the subject (NATS "no responders", not the deadline)', async () => {
    // A long deadline: had the client waited it out, the answer would be DEADLINE_EXCEEDED, not UNAVAILABLE.
    const err = (await client.call(Nobody, {}, { timeoutMs: 20_000 }).catch((e: unknown) => e)) as RpcError;
    expect(err.status.code).toBe(Code.UNAVAILABLE);
    expect(err.status.details).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'SERVICE_UNAVAILABLE' })]));
  });

  it('answers DEADLINE_EXCEEDED when the peer is silent past the deadline', async () => {
    const silent = defineRpc('test.v1.silent', z.object({}), z.object({}), PUBLIC);
    serverConn.subscribe(silent.subject, { callback: () => undefined });
    await serverConn.flush();
    const started = Date.now();
    const err = (await client.call(silent, {}, { timeoutMs: 300 }).catch((e: unknown) => e)) as RpcError;
    expect(err.status.code).toBe(Code.DEADLINE_EXCEEDED);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('gives each of many concurrent calls its own reply, and a reply that comes after the deadline reaches nobody', async () => {
    const texts = Array.from({ length: 200 }, (_, i) => `n${i}`);
    await expect(Promise.all(texts.map((text) => client.call(Echo, { text })))).resolves.toEqual(texts.map((t) => ({ text: `${t}:none` })));

    const late = defineRpc('test.v1.late', z.object({}), z.object({ late: z.boolean() }), PUBLIC);
    const sub = serverConn.subscribe(late.subject, {
      callback: (_e, msg) => void setTimeout(() => msg.respond(new TextEncoder().encode('{"ok":{"late":true}}')), 400),
    });
    await serverConn.flush();
    const err = (await lateClient.call(late, {}, { timeoutMs: 100 }).catch((e: unknown) => e)) as RpcError;
    expect(err.status.code).toBe(Code.DEADLINE_EXCEEDED);
    await new Promise((r) => setTimeout(r, 500)); // the late reply arrives now, and is dropped
    await expect(lateClient.call(Echo, { text: 'after' })).resolves.toEqual({ text: 'after:none' });
    sub.unsubscribe();
  });

  it('fails a waiting call with UNAVAILABLE when its connection closes, without waiting out the deadline', async () => {
    const silent = defineRpc('test.v1.silent', z.object({}), z.object({}), PUBLIC);
    const sub = serverConn.subscribe(silent.subject, { callback: () => undefined });
    await serverConn.flush();
    const conn = await connectNats({ url: natsUrl, name: 'closing', connectTimeoutMs: 2000, ...bus.credentials('test-client') });
    const started = Date.now();
    const pending = new RpcClient(conn, 1000).call(silent, {}, { timeoutMs: 20_000 }).catch((e: unknown) => e);
    await conn.flush();
    await conn.close();
    const err = (await pending) as RpcError;
    expect(err.status.code).toBe(Code.UNAVAILABLE);
    expect(Date.now() - started).toBeLessThan(5000);
    sub.unsubscribe();
  });

  it('gives a partner operation the session’s partner, and refuses it without a session (the one access check)', async () => {
    const session = { kind: 'partner_session', client_ip: '127.0.0.1', partner_id: 'ptn_1', session_id: 'ses_1' } as const;
    await expect(client.call(Mine, {}, { caller: session })).resolves.toEqual({ partner: 'ptn_1' });
    for (const caller of [undefined, { kind: 'keyless', client_ip: '127.0.0.1' } as const, { kind: 'internal', service: 'x' } as const]) {
      const err = (await client.call(Mine, {}, caller ? { caller } : {}).catch((e: unknown) => e)) as RpcError;
      expect(err.status.code).toBe(Code.UNAUTHENTICATED);
    }
  });

  it('reads each request’s own caller, however often callers repeat (read callers are kept), and refuses a bad one', async () => {
    const session = (partner: string) =>
      ({ kind: 'partner_session', client_ip: '127.0.0.1', partner_id: partner, session_id: 'ses' }) as const;
    const partners = ['ptn_a', 'ptn_b', 'ptn_a', 'ptn_c', 'ptn_b', 'ptn_a'];
    const answers = await Promise.all(partners.map((p) => client.call(Mine, {}, { caller: session(p) })));
    expect(answers.map((a) => a.partner)).toEqual(partners);
    // A caller header that is not a caller context, sent by hand after good ones: refused, not mistaken for one.
    const h = headers();
    h.set(CALLER_HEADER, JSON.stringify({ ...session('ptn_a'), kind: 'nobody' }));
    const reply = await clientConn.request(Mine.subject, new TextEncoder().encode('{}'), { timeout: 2000, headers: h });
    expect(JSON.parse(new TextDecoder().decode(reply.data))).toMatchObject({ error: { code: Code.INVALID_ARGUMENT } });
  });

  it('answers PERMISSION_DENIED at once when the bus does not let this user call the subject', async () => {
    const err = (await client.call(Forbidden, {}, { timeoutMs: 2000 }).catch((e: unknown) => e)) as RpcError;
    expect(err.status.code).toBe(Code.PERMISSION_DENIED);
    await expect(client.call(Echo, { text: 'still' })).resolves.toEqual({ text: 'still:none' });
  });

  it('links the server span to the client span through NATS headers', async () => {
    const tracer = trace.getTracer('test');
    await tracer.startActiveSpan('http request', async (root) => {
      await client.call(Echo, { text: 'trace' });
      root.end();
    });
    await provider.forceFlush(); // span export is asynchronous in SDK 3
    const spans = exporter.getFinishedSpans();
    const root = spans.find((s) => s.name === 'http request')!;
    const send = spans.find((s) => s.name === 'test.v1.echo send')!;
    const processSpan = spans.find((s) => s.name === 'test.v1.echo process')!;
    expect(send.kind).toBe(SpanKind.CLIENT);
    expect(processSpan.kind).toBe(SpanKind.SERVER);
    expect(send.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(processSpan.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(send.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(processSpan.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
  });

  it('makes no span on either side under a parent that was not sampled, and the handler runs in that parent', async () => {
    // The gateway's HTTP span when nothing is exported, or one the edge's sampler left out.
    const parent = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.NONE };
    const seen = await context.with(trace.setSpanContext(ROOT_CONTEXT, parent), () => client.call(Traced, {}));
    expect(seen).toEqual({ trace_id: parent.traceId, span_id: parent.spanId, flags: TraceFlags.NONE });
    await provider.forceFlush();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual([]);
    // A sampled parent still gets both spans, and the handler runs in the server's.
    const sampled = { ...parent, traceFlags: TraceFlags.SAMPLED };
    const under = await context.with(trace.setSpanContext(ROOT_CONTEXT, sampled), () => client.call(Traced, {}));
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual(['test.v1.traced process', 'test.v1.traced send']);
    expect(under.trace_id).toBe(parent.traceId);
    expect(under.span_id).toBe(spans.find((s) => s.name === 'test.v1.traced process')!.spanContext().spanId);
  });
});
