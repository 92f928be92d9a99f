import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { StreamDefinition } from '@xchain/contracts';
import { freePort, newBus, startNats, type Managed } from '@xchain/stack';
import { z } from 'zod';
import { connectNats, type NatsConnection } from './connection';
import { DurableConsumer, retryDelay } from './durable-consumer';

const bus = newBus({ 'test-consumer': { publish: ['>'], subscribe: ['>'] } });
const STREAM: StreamDefinition = { name: 'DURABLE_TEST', subjects: ['durable-test.>'], maxAgeSecs: 3600, storage: 'file' };

/**
 * A dependency down for longer than any fixed number of deliveries: the message whose handling
 * keeps failing is still there, and handled, once it is back (the consumers once gave up after 20
 * or 50 deliveries a second apart, so an outage of a minute dropped order steps for good).
 */
describe('DurableConsumer on a real NATS server', () => {
  let nats: Managed;
  let dir: string;
  let nc: NatsConnection;
  const log = { warn: () => undefined, info: () => undefined };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'durable-'));
    const [port, monitor] = [await freePort(), await freePort()];
    nats = await startNats(dir, port, monitor, join(dir, 'nats.log'), bus.users);
    nc = await connectNats({
      url: `nats://127.0.0.1:${port}`,
      name: 'test-consumer',
      connectTimeoutMs: 2000,
      ...bus.credentials('test-consumer'),
    });
  });

  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers a failing message again and again, past the 20 deliveries an older durable allowed, until it is handled; the durable is updated to no limit', async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: STREAM.name, subjects: [...STREAM.subjects] });
    // The durable as an older version made it: at most 20 deliveries.
    await jsm.consumers.add(STREAM.name, { durable_name: 'outage', ack_policy: AckPolicy.Explicit, max_deliver: 20 });

    const attempts: number[] = [];
    let handled!: () => void;
    const done = new Promise<void>((r) => (handled = r));
    const consumer = new DurableConsumer({
      nc,
      stream: STREAM,
      durable: 'outage',
      schema: z.object({ n: z.number() }),
      handle: async (m) => {
        attempts.push(m.n);
        if (attempts.length <= 30) throw new Error('the dependency is away');
        handled();
      },
      retryDelayMs: 5,
      maxRetryDelayMs: 20,
      log,
      label: 'outage test',
    });
    consumer.start();
    try {
      await jetstream(nc).publish('durable-test.one', JSON.stringify({ n: 7 }));
      await Promise.race([
        done,
        new Promise((_, reject) => setTimeout(() => reject(new Error(`handled ${attempts.length} times, never acknowledged`)), 20_000)),
      ]);
      expect(attempts).toHaveLength(31);
      expect(new Set(attempts)).toEqual(new Set([7]));
      expect((await jsm.consumers.info(STREAM.name, 'outage')).config.max_deliver).toBe(-1);
    } finally {
      consumer.stop();
    }
  });
});

describe('retryDelay', () => {
  it('doubles from the first delay per failed delivery and stops at the most', () => {
    expect([1, 2, 3, 4, 5, 6, 50, 10_000].map((n) => retryDelay(n, 1000, 30_000))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });
});
