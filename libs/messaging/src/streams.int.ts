import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { GASLESS_EVENTS_STREAM_DEF, ORDER_UPDATES_STREAM_DEF } from '@xchain/contracts';
import { freePort, newBus, startNats, type Managed } from '@xchain/stack';
import { Registry } from 'prom-client';
import { connectNats, type NatsConnection } from './connection';
import { ensureStream, streamChecks } from './streams';

/** The services' own NATS users (their JetStream permissions as generated), plus an operator that may change any stream. */
const bus = newBus({ 'test-operator': { publish: ['$JS.API.>'] } });

describe('ensureStream on a real NATS server, as the services connect', () => {
  let nats: Managed;
  let dir: string;
  let url: string;
  const conns: NatsConnection[] = [];
  const connect = async (user: string) => {
    const nc = await connectNats({ url, name: user, connectTimeoutMs: 2000, ...bus.credentials(user) });
    conns.push(nc);
    return nc;
  };
  const logger = () => {
    const lines: { fields: object; msg: string }[] = [];
    return { lines, warn: (fields: object, msg: string) => void lines.push({ fields, msg }) };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-'));
    const [port, monitor] = [await freePort(), await freePort()];
    nats = await startNats(dir, port, monitor, join(dir, 'nats.log'), bus.users);
    url = `nats://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    for (const nc of conns) await nc.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a missing stream exactly as defined, and finds it as defined the next time', async () => {
    const jsm = await jetstreamManager(await connect('quote-engine'));
    const log = logger();
    const registry = new Registry();
    await expect(ensureStream(jsm, ORDER_UPDATES_STREAM_DEF, log, { registry })).resolves.toEqual({
      stream: 'ORDER_UPDATES_V1',
      outcome: 'ok',
      differences: [],
    });
    const info = await jsm.streams.info('ORDER_UPDATES_V1');
    expect(info.config).toMatchObject({ subjects: ['orders.v1.updated.*'], max_age: 7 * 24 * 3600 * 1e9, storage: 'file' });
    // Another service (its own user) starting later finds the same stream and says nothing.
    const other = await jetstreamManager(await connect('partner-service'));
    await expect(ensureStream(other, ORDER_UPDATES_STREAM_DEF, log, { registry })).resolves.toMatchObject({ outcome: 'ok' });
    expect(log.lines).toEqual([]);
    expect((await registry.getSingleMetric('nats_stream_config_mismatch')!.get()).values).toEqual([
      { labels: { stream: 'ORDER_UPDATES_V1' }, value: 0 },
    ]);
  });

  it('reports a server stream that differs (one warn line naming each difference) and leaves it unchanged', async () => {
    const admin = await jetstreamManager(await connect('test-operator'));
    await admin.streams.add({ name: 'GASLESS_EVENTS_V1', subjects: ['gasless.v1.events.*', 'gasless.v1.extra'], max_age: 3600 * 1e9 });
    const jsm = await jetstreamManager(await connect('gasless-relayer'));
    const log = logger();
    const registry = new Registry();
    const check = await ensureStream(jsm, GASLESS_EVENTS_STREAM_DEF, log, { registry });
    expect(check).toEqual({
      stream: 'GASLESS_EVENTS_V1',
      outcome: 'mismatch',
      differences: [
        'subjects: server [gasless.v1.events.*, gasless.v1.extra], defined [gasless.v1.events.*]',
        'max_age: server 3600 s, defined 604800 s',
      ],
    });
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]!.msg).toContain('GASLESS_EVENTS_V1 differs from its definition');
    expect(log.lines[0]!.msg).toContain('max_age: server 3600 s, defined 604800 s');
    expect(streamChecks().get('GASLESS_EVENTS_V1')).toEqual(check);
    expect((await registry.getSingleMetric('nats_stream_config_mismatch')!.get()).values).toEqual([
      { labels: { stream: 'GASLESS_EVENTS_V1' }, value: 1 },
    ]);
    // Not updated behind the operator's back.
    expect((await admin.streams.info('GASLESS_EVENTS_V1')).config).toMatchObject({
      max_age: 3600 * 1e9,
      subjects: ['gasless.v1.events.*', 'gasless.v1.extra'],
    });
  });

  it('a user that may not create the stream gets the error, not a report of a mismatch', async () => {
    const jsm = await jetstreamManager(await connect('gateway'), { checkAPI: false });
    const log = logger();
    await expect(
      ensureStream(jsm, { ...GASLESS_EVENTS_STREAM_DEF, name: 'NOT_A_STREAM_OF_OURS' }, log, { registry: new Registry() }),
    ).rejects.toThrow();
    expect(log.lines).toEqual([]);
  });
});
