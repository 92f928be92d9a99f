import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RpcError, defineRpc } from '@xchain/contracts';
import { freePort, newBus, startNats, type Managed, until, type UntilOptions } from '@xchain/stack';
import pino from 'pino';
import { z } from 'zod';
import { busDown } from './bus-state';
import { connectNats, type NatsConnection } from './connection';
import { RpcClient } from './rpc-client';
import { RpcServer } from './rpc-server';

const Echo = defineRpc('test.v1.echo', z.object({ text: z.string() }), z.object({ text: z.string() }), { access: 'public' });
const bus = newBus({ 'test-server': { subscribe: ['test.v1.>'], allowResponses: true }, 'test-client': { publish: ['test.v1.echo'] } });

jest.setTimeout(60_000);

/** NATS gone: a request answers 503 BUS_UNAVAILABLE at once, not 504 after its whole deadline; back once NATS is. */
describe('requests while the bus is down', () => {
  let nats: Managed | undefined;
  let dir: string;
  let port: number;
  let monitor: number;
  const conns: NatsConnection[] = [];

  const startServer = async () => {
    nats = await startNats(dir, port, monitor, join(dir, 'nats.log'), bus.users);
  };
  const POLL: UntilOptions = { timeoutMs: 10_000, failOnError: true };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-down-'));
    [port, monitor] = [await freePort(), await freePort()];
    await startServer();
  });

  afterAll(async () => {
    for (const c of conns) await c.close().catch(() => undefined);
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses with BUS_UNAVAILABLE while disconnected, and answers again after the reconnect', async () => {
    const url = `nats://127.0.0.1:${port}`;
    const serverConn = await connectNats({ url, name: 'server', connectTimeoutMs: 2000, ...bus.credentials('test-server') });
    const clientConn = await connectNats({ url, name: 'client', connectTimeoutMs: 2000, ...bus.credentials('test-client') });
    conns.push(serverConn, clientConn);
    const server = new RpcServer(serverConn, 'test', pino({ level: 'silent' }));
    server.handle(Echo, async (req) => ({ text: req.text }));
    // The subscription is registered once the server has read it: until then a request from
    // another connection finds no responder (as the whole suite on a busy machine once showed).
    await serverConn.flush();
    const client = new RpcClient(clientConn, 5000);
    expect(await client.call(Echo, { text: 'up' })).toEqual({ text: 'up' });

    await nats!.stop();
    await until('the client seeing the disconnect', () => busDown(clientConn), POLL);
    // A deadline far beyond this wait: the old behaviour (waiting it out, then 504 UPSTREAM_TIMEOUT) cannot pass.
    const refused = await client.call(Echo, { text: 'down' }, { timeoutMs: 20_000 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).status).toMatchObject({ code: 14, message: 'message bus unavailable' });
    expect(JSON.stringify((refused as RpcError).status.details)).toContain('BUS_UNAVAILABLE');

    await startServer();
    await until('the reconnect', () => !busDown(clientConn), POLL);
    // The server's own subscription comes back with its reconnect: ask until it answers (on a 2-core
    // machine running the whole suite its reconnect has taken over 10 s).
    const answer = await until('an answer after the client reconnected', () => client.call(Echo, { text: 'back' }, { timeoutMs: 1000 }), {
      timeoutMs: 25_000,
      everyMs: 0,
    });
    expect(answer).toEqual({ text: 'back' });
  });
});
