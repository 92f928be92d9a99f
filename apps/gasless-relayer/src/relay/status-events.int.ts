import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { GASLESS_EVENTS_STREAM } from '@xchain/contracts';
import { connectNats, type NatsConnection } from '@xchain/messaging';
import { type Managed, freePort, newBus, startNats, until } from '@xchain/stack';
import type { Logger } from '@xchain/telemetry';
import { StatusEvents } from './status-events';

jest.setTimeout(60_000);

const bus = newBus({ 'test-reader': { publish: ['$JS.API.STREAM.INFO.GASLESS_EVENTS_V1', '$JS.API.STREAM.MSG.GET.GASLESS_EVENTS_V1'] } });
const HASH = `0x${'ab'.repeat(32)}`;

/**
 * A status event due while NATS cannot take it (a member down, a stream electing its leader: here
 * the one server stopped) is published once NATS is back, within the retry time, and once only.
 */
describe('relay status events through a NATS outage', () => {
  let dir: string;
  let port: number;
  let monitor: number;
  let nats: Managed | undefined;
  const conns: NatsConnection[] = [];
  const lines: { level: string; msg: string }[] = [];
  const log = {
    info: (_f: object, msg: string) => void lines.push({ level: 'info', msg }),
    warn: (_f: object, msg: string) => void lines.push({ level: 'warn', msg }),
    error: (_f: object, msg: string) => void lines.push({ level: 'error', msg }),
  } as unknown as Logger;
  const start = async () => {
    nats = await startNats(dir, port, monitor, join(dir, 'nats.log'), bus.users);
  };
  const connectAs = async (user: string) => {
    const nc = await connectNats({ url: `nats://127.0.0.1:${port}`, name: user, connectTimeoutMs: 5000, ...bus.credentials(user) });
    conns.push(nc);
    return nc;
  };
  const view = (status: 'submitted' | 'confirmed') =>
    ({ quote_hash: HASH, status, tx_hash: `0x${'cd'.repeat(32)}`, tx_hashes: [`0x${'cd'.repeat(32)}`] }) as never;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'natscluster-status-'));
    [port, monitor] = [await freePort(), await freePort()];
    await start();
  });

  afterAll(async () => {
    for (const nc of conns) await nc.close().catch(() => undefined);
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes an event that failed while NATS was away once it is back, and only once', async () => {
    const events = new StatusEvents(await connectAs('gasless-relayer'), log);
    const reader = await jetstreamManager(await connectAs('test-reader'), { checkAPI: false });
    events.publish('base', view('submitted'));
    await until('the first event', async () => (await reader.streams.info(GASLESS_EVENTS_STREAM)).state.messages === 1, {
      timeoutMs: 10_000,
      everyMs: 100,
    });

    await nats!.stop();
    events.publish('base', view('confirmed'));
    await until('a failed attempt', async () => lines.some((l) => l.level === 'warn'), { timeoutMs: 10_000, everyMs: 100 });
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual(['status event not published; retrying']);
    await start();

    await until('the event after the outage', async () => (await reader.streams.info(GASLESS_EVENTS_STREAM)).state.messages === 2, {
      timeoutMs: 30_000,
      everyMs: 100,
    });
    const stored = await reader.streams.getMessage(GASLESS_EVENTS_STREAM, { seq: 2 });
    if (!stored) throw new Error('the second event is not in the stream');
    expect(stored.subject).toBe('gasless.v1.events.confirmed');
    expect(stored.json<{ quote_hash: string; status: string }>()).toMatchObject({ quote_hash: HASH, status: 'confirmed' });
    expect(lines.filter((l) => l.level === 'info').map((l) => l.msg)).toEqual(['status event published after a retry']);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    // The same event again (a repeat within the window) is not stored twice.
    events.publish('base', view('confirmed'));
    await new Promise((r) => setTimeout(r, 500));
    expect((await reader.streams.info(GASLESS_EVENTS_STREAM)).state.messages).toBe(2);
  });

  it('gives up after its retry time with one error line, and does not keep the process waiting', async () => {
    const quick = new StatusEvents(await connectAs('gasless-relayer'), log, 1500);
    lines.length = 0;
    await nats!.stop();
    try {
      quick.publish('base', view('submitted'));
      await until('the give-up line', async () => lines.some((l) => l.level === 'error'), { timeoutMs: 15_000, everyMs: 100 });
      expect(lines.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual([
        expect.stringMatching(/^status event not published after \d+ attempts; given up$/),
      ]);
    } finally {
      await start();
    }
  });
});
