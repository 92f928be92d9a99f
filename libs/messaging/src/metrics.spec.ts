import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { Code, RpcError, defineRpc, errorInfo } from '@xchain/contracts';
import pino from 'pino';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { encodeJson } from './envelope';
import { busMetrics, clientOutcomeOf, codeNameOf } from './metrics';
import { RpcClient } from './rpc-client';
import { RpcServer } from './rpc-server';

const Echo = defineRpc('test.v1.echo', z.object({ text: z.string().min(1) }), z.object({ text: z.string() }), { access: 'public' });

async function sample(registry: Registry, series: string): Promise<number | undefined> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('bus metric labels', () => {
  it('names a client call’s outcome: ok, timeout, or the code name', () => {
    expect(clientOutcomeOf(undefined)).toBe('ok');
    expect(clientOutcomeOf(RpcError.deadlineExceeded('quote did not answer within 2000 ms', 'UPSTREAM_TIMEOUT'))).toBe('timeout');
    // A deadline the peer itself reported is its answer, not our timeout.
    expect(clientOutcomeOf(new RpcError(Code.DEADLINE_EXCEEDED, 'slow chain', [errorInfo('CHAIN_TIMEOUT')]))).toBe('DEADLINE_EXCEEDED');
    expect(clientOutcomeOf(RpcError.unavailable('quote is unavailable', 'SERVICE_UNAVAILABLE'))).toBe('UNAVAILABLE');
    expect(clientOutcomeOf(RpcError.invalidArgument([{ field: 'amount', description: 'is required' }]))).toBe('INVALID_ARGUMENT');
    expect(clientOutcomeOf(new Error('malformed reply envelope'))).toBe('INTERNAL');
    expect(codeNameOf(new RpcError(2 as never, 'odd'))).toBe('UNKNOWN');
  });
});

describe('RpcClient and RpcServer record every call', () => {
  it('counts a client call that timed out as `timeout`, by subject, with its duration', async () => {
    const registry = new Registry();
    const client = new RpcClient(
      fakeConnection(() => 'silent'),
      1000,
      busMetrics(registry),
    );
    await expect(client.call(Echo, { text: 'hi' }, { timeoutMs: 20 })).rejects.toMatchObject({ status: { code: Code.DEADLINE_EXCEEDED } });
    expect(await sample(registry, 'nats_client_request_duration_seconds_count{subject="test.v1.echo",outcome="timeout"}')).toBe(1);
    expect(
      await sample(registry, 'nats_client_request_duration_seconds_sum{subject="test.v1.echo",outcome="timeout"}'),
    ).toBeGreaterThanOrEqual(0.015);
  });

  it('counts a no-responders call as UNAVAILABLE and an answered one as ok', async () => {
    const registry = new Registry();
    let answer: 'none' | 'ok' = 'none';
    const client = new RpcClient(
      fakeConnection(() => (answer === 'none' ? 'no-responders' : encodeJson({ ok: { text: 'hi' } }))),
      1000,
      busMetrics(registry),
    );
    await expect(client.call(Echo, { text: 'hi' })).rejects.toMatchObject({ status: { code: Code.UNAVAILABLE } });
    answer = 'ok';
    await expect(client.call(Echo, { text: 'hi' })).resolves.toEqual({ text: 'hi' });
    expect(await sample(registry, 'nats_client_request_duration_seconds_count{subject="test.v1.echo",outcome="UNAVAILABLE"}')).toBe(1);
    expect(await sample(registry, 'nats_client_request_duration_seconds_count{subject="test.v1.echo",outcome="ok"}')).toBe(1);
  });

  it('counts served requests by outcome: ok, the refusal’s code, INTERNAL for a handler that throws', async () => {
    const registry = new Registry();
    let callback: ((err: Error | null, msg: Msg) => void) | undefined;
    const replies: unknown[] = [];
    const nc = {
      subscribe: (_s: string, o: { callback: typeof callback }) => ((callback = o.callback), { unsubscribe: () => undefined }),
    } as unknown as NatsConnection;
    const server = new RpcServer(nc, 'test', pino({ level: 'silent' }), busMetrics(registry));
    server.handle(Echo, async (req) => {
      if (req.text === 'boom') throw new Error('bug');
      return { text: req.text };
    });
    const send = (body: unknown) =>
      new Promise<void>((resolve) => {
        callback!(null, {
          data: encodeJson(body),
          reply: '_INBOX.x',
          headers: undefined,
          respond: (d: Uint8Array) => (replies.push(d), resolve(), true),
        } as unknown as Msg);
      });
    await send({ text: 'hi' });
    await send({ text: '' });
    await send({ text: 'boom' });
    expect(replies).toHaveLength(3);
    // The observation follows the reply in the same tick.
    await new Promise((r) => setImmediate(r));
    expect(await sample(registry, 'nats_server_request_duration_seconds_count{subject="test.v1.echo",outcome="ok"}')).toBe(1);
    expect(await sample(registry, 'nats_server_request_duration_seconds_count{subject="test.v1.echo",outcome="INVALID_ARGUMENT"}')).toBe(1);
    expect(await sample(registry, 'nats_server_request_duration_seconds_count{subject="test.v1.echo",outcome="INTERNAL"}')).toBe(1);
  });
});

/**
 * A NATS connection that answers each request on its reply subject as `answer` says: a reply
 * payload, the server's no-responders status (503, empty), or nothing at all.
 */
function fakeConnection(answer: () => Uint8Array | 'no-responders' | 'silent'): NatsConnection {
  let deliver: ((err: Error | null, msg: Msg) => void) | undefined;
  return {
    isClosed: () => false,
    subscribe: (_subject: string, opts: { callback: (err: Error | null, msg: Msg) => void }) => {
      deliver = opts.callback;
      return { closed: new Promise(() => undefined), getSubject: () => _subject, unsubscribe: () => undefined };
    },
    publish: (_subject: string, _data: Uint8Array, opts: { reply: string }) => {
      const a = answer();
      if (a === 'silent') return;
      const msg =
        a === 'no-responders' ? { subject: opts.reply, data: new Uint8Array(), headers: { code: 503 } } : { subject: opts.reply, data: a };
      setImmediate(() => deliver?.(null, msg as unknown as Msg));
    },
    status: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => undefined) }) }),
  } as unknown as NatsConnection;
}
