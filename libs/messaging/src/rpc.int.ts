import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Code, RpcError, defineRpc } from '@xchain/contracts';
import { freePort, startNats, type Managed } from '@xchain/stack';
import pino from 'pino';
import { z } from 'zod';
import { connectNats, type NatsConnection } from './connection';
import { RpcClient } from './rpc-client';
import { RpcServer } from './rpc-server';

const Echo = defineRpc('test.v1.echo', z.object({ text: z.string().min(1) }), z.object({ text: z.string() }));
const Broken = defineRpc('test.v1.broken', z.object({}), z.object({ n: z.number() }));
const Nobody = defineRpc('test.v1.nobody', z.object({}), z.object({}));

describe('RPC over a real NATS server', () => {
  const exporter = new InMemorySpanExporter();
  let provider: TracerProvider;
  let nats: Managed;
  let dir: string;
  let serverConn: NatsConnection;
  let clientConn: NatsConnection;
  let client: RpcClient;

  beforeAll(async () => {
    provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    dir = mkdtempSync(join(tmpdir(), 'nats-'));
    const [port, monitor] = [await freePort(), await freePort()];
    nats = await startNats(dir, port, monitor, join(dir, 'nats.log'));
    const url = `nats://127.0.0.1:${port}`;
    serverConn = await connectNats({ url, name: 'server', connectTimeoutMs: 2000 });
    clientConn = await connectNats({ url, name: 'client', connectTimeoutMs: 2000 });
    const server = new RpcServer(serverConn, 'test', pino({ level: 'silent' }));
    server.handle(Echo, async (req, ctx) => ({ text: `${req.text}:${ctx.caller?.kind ?? 'none'}` }));
    server.handle(Broken, async () => ({ n: 'not a number' }) as unknown as { n: number });
    await serverConn.flush();
    client = new RpcClient(clientConn, 1000);
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

  it('answers UNAVAILABLE at once when nobody serves the subject', async () => {
    const started = Date.now();
    const err = (await client.call(Nobody, {}).catch((e: unknown) => e)) as RpcError;
    expect(err.status.code).toBe(Code.UNAVAILABLE);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('answers DEADLINE_EXCEEDED when the peer is silent past the deadline', async () => {
    const silent = defineRpc('test.v1.silent', z.object({}), z.object({}));
    serverConn.subscribe(silent.subject, { callback: () => undefined });
    await serverConn.flush();
    const started = Date.now();
    const err = (await client.call(silent, {}, { timeoutMs: 300 }).catch((e: unknown) => e)) as RpcError;
    expect(err.status.code).toBe(Code.DEADLINE_EXCEEDED);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
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
});
