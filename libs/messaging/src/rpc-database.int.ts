import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Code, RpcError, defineRpc } from '@xchain/contracts';
import { freePort, newBus, startNats, type Managed } from '@xchain/stack';
import { Client } from 'pg';
import pino from 'pino';
import { z } from 'zod';
import { connectNats, type NatsConnection } from './connection';
import { RpcClient } from './rpc-client';
import { RpcServer } from './rpc-server';

const Read = defineRpc('dbtest.v1.read', z.object({}), z.object({ ok: z.boolean() }), { access: 'public' });
const bus = newBus({
  'test-server': { subscribe: ['dbtest.v1.>'], allowResponses: true },
  'test-client': { publish: ['dbtest.v1.read'] },
});

/**
 * A handler whose database is not there (a real node-postgres connect to a port nobody listens
 * on): the caller gets UNAVAILABLE / DATABASE_UNAVAILABLE with RetryInfo, not INTERNAL, and the
 * server logs the outage once when it starts and once when it ends, however many requests fail.
 */
describe('RpcServer with an unreachable database', () => {
  let nats: Managed;
  let dir: string;
  let serverConn: NatsConnection;
  let clientConn: NatsConnection;
  let client: RpcClient;
  let server: RpcServer;
  let deadPort: number;
  let up = false;
  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-'));
    const [port, monitor] = [await freePort(), await freePort()];
    deadPort = await freePort();
    nats = await startNats(dir, port, monitor, join(dir, 'nats.log'), bus.users);
    const url = `nats://127.0.0.1:${port}`;
    serverConn = await connectNats({ url, name: 'server', connectTimeoutMs: 2000, ...bus.credentials('test-server') });
    clientConn = await connectNats({ url, name: 'client', connectTimeoutMs: 2000, ...bus.credentials('test-client') });
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString('utf8').split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    server = new RpcServer(serverConn, 'dbtest', pino({ level: 'info' }, sink));
    server.handle(Read, async () => {
      if (up) return { ok: true };
      const db = new Client({ host: '127.0.0.1', port: deadPort, user: 'postgres', connectionTimeoutMillis: 2000 });
      await db.connect();
      return { ok: false };
    });
    await serverConn.flush();
    client = new RpcClient(clientConn, 5000);
  });

  afterAll(async () => {
    await server?.close();
    await clientConn?.close();
    await serverConn?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers DATABASE_UNAVAILABLE with a retry delay and logs one line per outage state change', async () => {
    const failures = await Promise.all(
      Array.from({ length: 20 }, () =>
        client.call(Read, {}).then(
          () => undefined,
          (e: unknown) => e,
        ),
      ),
    );
    for (const err of failures) {
      expect(err).toBeInstanceOf(RpcError);
      const status = (err as RpcError).status;
      expect(status.code).toBe(Code.UNAVAILABLE);
      expect(status.details).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ reason: 'DATABASE_UNAVAILABLE' }),
          expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retry_delay: '2s' }),
        ]),
      );
    }
    expect(lines.map((l) => l['msg'])).toEqual(['database unreachable; answering UNAVAILABLE until it is back']);
    expect(String(lines[0]!['err'])).toMatch(/ECONNREFUSED/);

    up = true;
    await expect(client.call(Read, {})).resolves.toEqual({ ok: true });
    await expect(client.call(Read, {})).resolves.toEqual({ ok: true });
    expect(lines.map((l) => l['msg'])).toEqual([
      'database unreachable; answering UNAVAILABLE until it is back',
      'database reachable again',
    ]);
    expect(lines[1]).toMatchObject({ failures_not_logged: 19 });
  });
});
