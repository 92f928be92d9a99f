import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { GASLESS_EVENTS_STREAM_DEF, ORDER_EVENTS_STREAM_DEF, ORDER_UPDATES_STREAM_DEF } from '@xchain/contracts';
import { type NatsCluster, freePort, newBus, startNatsCluster, until } from '@xchain/stack';
import { Registry } from 'prom-client';
import { connectNats, streamReplicasOf, type NatsConnection } from './connection';
import { ensureStream } from './streams';

jest.setTimeout(120_000);

/** The services' own users, plus an operator that may do anything with JetStream (to make an old one-copy stream). */
const bus = newBus({ 'test-operator': { publish: ['$JS.API.>'] } });

/**
 * The local three-member cluster (tools/stack's `startNatsCluster`, what `natsCluster` stacks run)
 * and streams kept at the configured replica count on it: created with three copies, an older
 * one-copy stream moved to three (its durable consumer along), and a member killed with kill -9
 * and restarted while clients carry on through the others.
 */
describe('streams on a three-member NATS cluster', () => {
  let dir: string;
  let cluster: NatsCluster;
  const conns: NatsConnection[] = [];
  const connectAs = async (user: string, replicas?: number) => {
    const nc = await connectNats({
      url: cluster.url,
      name: user,
      connectTimeoutMs: 5000,
      ...bus.credentials(user),
      streamReplicas: replicas,
    });
    conns.push(nc);
    return nc;
  };
  const logger = () => {
    const lines: { fields: object; msg: string }[] = [];
    return { lines, warn: (fields: object, msg: string) => void lines.push({ fields, msg }) };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'natscluster-'));
    cluster = await startNatsCluster({ dir, port: await freePort(), users: bus.users, logFile: (name) => join(dir, `${name}.log`) });
  });

  afterAll(async () => {
    for (const nc of conns) await nc.close().catch(() => undefined);
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts three members on loopback, each with its passwords in a file only its owner reads, refusing unknown users', async () => {
    expect(cluster.members.map((m) => m.serverName)).toEqual(['nats-0', 'nats-1', 'nats-2']);
    expect(cluster.url.split(',')).toEqual(cluster.members.map((m) => `nats://127.0.0.1:${m.port}`));
    for (const m of cluster.members) {
      expect(m.running()).toBe(true);
      expect(statSync(join(dir, m.serverName, 'nats.conf')).mode & 0o777).toBe(0o600);
    }
    const url = `127.0.0.1:${cluster.members[1]!.port}`;
    await expect(connect({ servers: url, user: 'gateway', pass: 'wrong', reconnect: false, timeout: 3000 })).rejects.toThrow(
      /Authorization/i,
    );
    await expect(connect({ servers: url, user: 'route', pass: 'anything', reconnect: false, timeout: 3000 })).rejects.toThrow(
      /Authorization/i,
    );
  });

  it('creates a stream with the connection’s replica count: a leader and two current followers', async () => {
    const nc = await connectAs('gasless-relayer', 3);
    expect(streamReplicasOf(nc)).toBe(3);
    const jsm = await jetstreamManager(nc);
    const log = logger();
    await expect(
      ensureStream(jsm, GASLESS_EVENTS_STREAM_DEF, log, { replicas: streamReplicasOf(nc), registry: new Registry() }),
    ).resolves.toMatchObject({ outcome: 'ok' });
    const info = await jsm.streams.info(GASLESS_EVENTS_STREAM_DEF.name);
    expect(info.config.num_replicas).toBe(3);
    expect(info.cluster?.leader).toMatch(/^nats-\d$/);
    expect(info.cluster?.replicas).toHaveLength(2);
    expect(log.lines).toEqual([]);
    // A second service finds it as configured and says nothing.
    const other = await jetstreamManager(await connectAs('quote-engine', 3));
    await expect(ensureStream(other, GASLESS_EVENTS_STREAM_DEF, log, { replicas: 3, registry: new Registry() })).resolves.toMatchObject({
      outcome: 'ok',
    });
    expect(log.lines).toEqual([]);
  });

  it('moves a one-copy stream made earlier to three copies, keeping its messages and its durable consumer', async () => {
    const admin = await jetstreamManager(await connectAs('test-operator'));
    const def = ORDER_EVENTS_STREAM_DEF;
    await admin.streams.add({
      name: def.name,
      subjects: [...def.subjects],
      max_age: def.maxAgeSecs * 1e9,
      storage: def.storage,
      num_replicas: 1,
    });
    await admin.consumers.add(def.name, { durable_name: 'quote-engine', ack_policy: AckPolicy.Explicit });
    const qe = await connectAs('quote-engine', 3);
    for (let i = 0; i < 5; i++) await qe.request('orders.v1.deposited', JSON.stringify({ i }), { timeout: 5000 });
    const log = logger();
    const registry = new Registry();
    const check = await ensureStream(await jetstreamManager(qe), def, log, { replicas: 3, registry });
    expect(check).toEqual({ stream: def.name, outcome: 'ok', differences: [] });
    expect(log.lines.map((l) => l.msg)).toEqual([`stream ${def.name}: replicas 1 → 3 (NATS_STREAM_REPLICAS)`]);
    expect((await registry.getSingleMetric('nats_stream_config_mismatch')!.get()).values).toEqual([
      { labels: { stream: def.name }, value: 0 },
    ]);
    const info = await admin.streams.info(def.name);
    expect({ replicas: info.config.num_replicas, messages: info.state.messages }).toEqual({ replicas: 3, messages: 5 });
    // The consumer follows its stream onto the new members (it inherits the stream's count).
    await until(
      'the consumer on three members',
      async () => (await admin.consumers.info(def.name, 'quote-engine')).cluster?.replicas?.length === 2,
      { timeoutMs: 20_000, everyMs: 100 },
    );
    expect((await admin.consumers.info(def.name, 'quote-engine')).num_pending).toBe(5);
  });

  it('reports, and does not fail on, a count the cluster cannot hold', async () => {
    const nc = await connectAs('quote-engine');
    const jsm = await jetstreamManager(nc);
    await ensureStream(jsm, ORDER_UPDATES_STREAM_DEF, logger(), { replicas: 3, registry: new Registry() });
    const log = logger();
    const check = await ensureStream(jsm, ORDER_UPDATES_STREAM_DEF, log, { replicas: 5, registry: new Registry() });
    expect(check.outcome).toBe('mismatch');
    expect(check.differences).toEqual([expect.stringMatching(/^num_replicas: server 3, configured 5 \(the update was refused: .+\)$/)]);
    expect(log.lines).toHaveLength(1);
    expect((await jsm.streams.info(ORDER_UPDATES_STREAM_DEF.name)).config.num_replicas).toBe(3);
  });

  it('keeps serving through kill -9 of the stream leader, and takes the member back after a restart', async () => {
    const nc = await connectAs('gasless-relayer', 3);
    const jsm = await jetstreamManager(nc);
    const stream = GASLESS_EVENTS_STREAM_DEF.name;
    const leader = cluster.member((await jsm.streams.info(stream)).cluster!.leader!);
    await leader.kill();
    expect(leader.running()).toBe(false);
    // The two others elect a new leader and the stream takes writes again (the client reconnects if it was on the dead one).
    let seq = 0;
    await until(
      'a write after the kill',
      async () => {
        seq =
          (await nc.request('gasless.v1.events.queued', '{}', { timeout: 2000 }).then((m) => JSON.parse(m.string()) as { seq?: number }))
            .seq ?? 0;
        return seq > 0;
      },
      { timeoutMs: 30_000, everyMs: 100 },
    );
    const after = await jsm.streams.info(stream);
    expect(after.cluster?.leader).not.toBe(leader.serverName);
    expect(after.cluster?.replicas?.find((r) => r.name === leader.serverName)).toMatchObject({ current: false });

    await leader.restart();
    expect(leader.running()).toBe(true);
    // Back in the cluster: it catches up on what it missed.
    await until(
      'the restarted member current again',
      async () => {
        const info = await jsm.streams.info(stream);
        const all = [info.cluster?.leader, ...(info.cluster?.replicas ?? []).filter((r) => r.current).map((r) => r.name)];
        return all.includes(leader.serverName);
      },
      { timeoutMs: 30_000, everyMs: 100 },
    );
  });
});
