import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import { type OrderUpdate, orderUpdateSubject } from '@xchain/contracts';
import { connectNats, type NatsConnection } from '@xchain/messaging';
import { type PrismaClient, createPartnerServiceDb } from '@xchain/partner-service-db';
import { FakeClock, HealthRegistry, SystemClock } from '@xchain/service-kit';
import {
  DEFAULT_REDIS_PREFIXES,
  type Managed,
  freePort,
  newBus,
  newRedisLogin,
  provisionRedisUsers,
  redisServiceRules,
  redisUrl,
  startNats,
  freshMigratedDatabase,
  testRedisAdmin,
  until,
  type UntilOptions,
} from '@xchain/stack';
import type { Logger } from '@xchain/telemetry';
import { AddressGuard } from './address-guard';
import { OrderUpdatesConsumer } from './order-updates.consumer';
import { WebhookSecretCipher } from './secret-cipher';
import { WebhookDispatcher } from './webhook-dispatcher';
import type { WebhookOptions } from './webhook-options';
import { httpSender } from './webhook-sender';
import { WebhookWorker } from './webhook-worker';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

const redisPort = Number(process.env['TEST_REDIS_PORT']);
/** The partner-service's own Redis user (D17), limited to this suite's queue prefix. */
const redisLogin = newRedisLogin(`int_partner_${randomBytes(4).toString('hex')}`);
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Logger;
const PUBLISHER = 'updates-publisher';

const POLL: UntilOptions = { timeoutMs: 15_000 };

/** A webhook receiver on a free loopback port; `answer` decides each reply (undefined: never answer). */
async function receiver(answer: (n: number) => number | undefined) {
  const got: { headers: IncomingMessage['headers']; body: string }[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      const status = answer(got.length);
      if (status !== undefined) res.writeHead(status).end();
    });
  });
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    got,
    close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

function verifies(secret: string, body: string, header: string | string[] | undefined): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  return !!m && createHmac('sha256', secret).update(`${m[1]}.${body}`).digest('hex') === m[2];
}

function update(partnerId: string | undefined, version = 1, quoteHash = `0x${randomBytes(32).toString('hex')}`): OrderUpdate {
  return {
    event_id: `${quoteHash}:${version}`,
    quote_hash: quoteHash,
    version,
    ...(partnerId ? { partner_id: partnerId } : {}),
    occurred_at: '2026-11-23T12:00:00.000Z',
    order: {
      quote_hash: quoteHash,
      status: 'deposited',
      terminal: false,
      src_chain: 'ethereum',
      dst_chain: 'arbitrum',
      src_token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      dst_token: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
      amount_in: '1000000000',
      amount_out: '999000000',
      min_amount_out: '996000000',
      quoted_at: '2026-11-23T11:59:00.000Z',
      expires_at: '2026-11-23T12:29:00.000Z',
      retained_until: '2026-11-30T11:59:00.000Z',
    },
  };
}

// Jest's default 5 s per test is shorter than this suite's own poll deadlines: they, not a stopwatch,
// should decide when something did not happen.
jest.setTimeout(60_000);

describe('webhook deliveries over real NATS, Redis and PostgreSQL', () => {
  let nats: Managed;
  let natsDir: string;
  let serviceConn: NatsConnection;
  let publisherConn: NatsConnection;
  let db: PrismaClient;
  let worker: WebhookWorker;
  let consumer: OrderUpdatesConsumer;
  let webhooks: WebhooksService;
  const opts: WebhookOptions = {
    allowHttpLocalhost: true,
    timeoutMs: 300,
    retry: { baseMs: 200, maxMs: 400, windowMs: 3_600_000 },
    redisUrl: redisUrl(redisPort, redisLogin),
    queuePrefix: `wh-int-${randomBytes(4).toString('hex')}`,
    concurrency: 5,
    sweepMs: 600_000, // swept by hand below
    secretKeys: { current: randomBytes(32), old: [] },
  };
  const cipher = new WebhookSecretCipher(opts.secretKeys);
  const closers: (() => Promise<void>)[] = [];

  const newPartner = async () => {
    const id = `ptn_${randomBytes(6).toString('hex')}`;
    await db.partner.create({ data: { id, email: `${id}@example.com` } });
    return id;
  };
  const publish = async (u: OrderUpdate) => {
    // The stream is created by the consumer as it starts: until then nobody answers the publish.
    await until(
      'the stream to take the update',
      async () => (await jetstream(publisherConn).publish(orderUpdateSubject(u.quote_hash), JSON.stringify(u)), true),
      POLL,
    );
  };
  const delivery = (partnerId: string, eventId: string) =>
    db.webhookDelivery.findUnique({ where: { partnerId_eventId: { partnerId, eventId } } });

  beforeAll(async () => {
    natsDir = mkdtempSync(join(tmpdir(), 'nats-webhooks-'));
    const [natsPort, monitorPort] = [await freePort(), await freePort()];
    // The quote-engine's role (publishing updates) is played by a test user with only that right.
    const bus = newBus({ [PUBLISHER]: { publish: ['orders.v1.updated.*'] } });
    nats = await startNats(natsDir, natsPort, monitorPort, join(natsDir, 'nats.log'), bus.users);
    const url = `nats://127.0.0.1:${natsPort}`;
    serviceConn = await connectNats({ url, name: 'partner-service', connectTimeoutMs: 5000, ...bus.credentials('partner-service') });
    publisherConn = await connectNats({ url, name: PUBLISHER, connectTimeoutMs: 5000, ...bus.credentials(PUBLISHER) });
    db = createPartnerServiceDb(await freshMigratedDatabase('partner-service', 'ps_webhooks'), 4);
    await provisionRedisUsers(redisPort, testRedisAdmin().login, [
      { login: redisLogin, rules: redisServiceRules('partner-service', { ...DEFAULT_REDIS_PREFIXES, webhookQueue: opts.queuePrefix }) },
    ]);
    worker = new WebhookWorker(new WebhooksRepository(db), opts, new HealthRegistry('partner-service'), silent, new SystemClock());
    worker.onApplicationBootstrap();
    consumer = new OrderUpdatesConsumer(serviceConn, new WebhooksRepository(db), worker, silent);
    consumer.onModuleInit();
    webhooks = new WebhooksService(new WebhooksRepository(db), opts, new SystemClock());
  }, 60_000);

  afterAll(async () => {
    for (const c of closers) await c();
    consumer?.onApplicationShutdown();
    await worker?.onApplicationShutdown();
    await publisherConn?.close();
    await serviceConn?.close();
    await db?.$disconnect();
    await nats?.stop();
    rmSync(natsDir, { recursive: true, force: true });
  });

  it('delivers a signed update after two failures, once, and a redelivered update adds nothing', async () => {
    const r = await receiver((n) => (n <= 2 ? 500 : 200));
    closers.push(r.close);
    const partner = await newPartner();
    const { secret } = await webhooks.set(partner, r.url);
    const u = update(partner);
    await publish(u);
    await publish(u); // JetStream redelivery, or the publisher sending twice
    const delivered = await until(
      'the delivery',
      async () => {
        const d = await delivery(partner, u.event_id);
        return d?.status === 'delivered' ? d : undefined;
      },
      POLL,
    );
    expect(delivered).toMatchObject({ attempts: 3, lastStatusCode: 200, version: 1, nextAttemptAt: null });
    expect(delivered.deliveredAt).not.toBeNull();
    // A later update is handled after the duplicate, so by its delivery the duplicate was seen.
    const later = update(partner, 2, u.quote_hash);
    await publish(later);
    await until('the later delivery', async () => (await delivery(partner, later.event_id))?.status === 'delivered', POLL);
    expect(await db.webhookDelivery.count({ where: { partnerId: partner } })).toBe(2);
    const first = r.got.filter((g) => g.headers['x-xchain-event-id'] === u.event_id);
    expect(first).toHaveLength(3);
    for (const g of r.got) {
      expect(g.headers['content-type']).toBe('application/json');
      expect(verifies(secret, g.body, g.headers['x-xchain-signature'])).toBe(true);
    }
    expect(JSON.parse(first[0]!.body)).toEqual({
      id: u.event_id,
      type: 'order.updated',
      created_at: u.occurred_at,
      version: 1,
      data: u.order,
    });
    expect(new Set(first.map((g) => g.body)).size).toBe(1); // every attempt sends the same bytes

    // A job found for a delivered row does nothing (a restart, a stale job): nothing is sent again.
    const sent = r.got.length;
    const dispatcher = new WebhookDispatcher(
      new WebhooksRepository(db),
      httpSender(new AddressGuard(true), 300),
      { timeoutMs: 300, retry: opts.retry, cipher },
      silent,
      new SystemClock(),
    );
    await expect(dispatcher.attempt(delivered.id)).resolves.toBeUndefined();
    expect(r.got).toHaveLength(sent);
    expect((await delivery(partner, u.event_id))?.attempts).toBe(3);
  });

  it('creates nothing for anonymous orders or partners without a webhook', async () => {
    const withHook = await newPartner();
    const without = await newPartner();
    const r = await receiver(() => 200);
    closers.push(r.close);
    await webhooks.set(withHook, r.url);
    const anon = update(undefined);
    const other = update(without);
    const marker = update(withHook);
    for (const u of [anon, other, marker]) await publish(u);
    await until('the marker delivery', async () => (await delivery(withHook, marker.event_id))?.status === 'delivered', POLL);
    expect(await db.webhookDelivery.count({ where: { OR: [{ quoteHash: anon.quote_hash }, { quoteHash: other.quote_hash }] } })).toBe(0);
  });

  it('keeps retrying a receiver that never answers, bounded by the timeout, until the webhook is removed', async () => {
    const r = await receiver(() => undefined);
    closers.push(r.close);
    const partner = await newPartner();
    await webhooks.set(partner, r.url);
    const u = update(partner);
    await publish(u);
    const stuck = await until(
      'three timed-out attempts',
      async () => {
        const d = await delivery(partner, u.event_id);
        return d && d.attempts >= 3 && d.lastError ? d : undefined;
      },
      POLL,
    );
    expect(stuck).toMatchObject({ status: 'pending', lastError: 'no answer within 300 ms', lastStatusCode: null });
    expect(stuck.nextAttemptAt).not.toBeNull();
    const page = await webhooks.deliveries(partner, undefined, undefined);
    expect(page.deliveries[0]).toMatchObject({
      id: `whd_${stuck.id}`,
      status: 'pending',
      next_attempt_at: expect.any(String),
      last_error: 'no answer within 300 ms',
    });

    await webhooks.remove(partner);
    const after = await delivery(partner, u.event_id);
    expect(after).toMatchObject({ status: 'failed', lastError: 'the webhook was removed', nextAttemptAt: null });
    // No claim can start on it any more, whatever job is still queued.
    const dispatcher = new WebhookDispatcher(
      new WebhooksRepository(db),
      httpSender(new AddressGuard(true), 300),
      { timeoutMs: 300, retry: opts.retry, cipher },
      silent,
      new SystemClock(),
    );
    await expect(dispatcher.attempt(after!.id)).resolves.toBeUndefined();
    // An update after the removal creates no delivery.
    const next = update(partner, 2, u.quote_hash);
    const witness = await newPartner();
    await webhooks.set(witness, r.url);
    const marker = update(witness);
    await publish(next);
    await publish(marker); // consumed after `next`: once its row exists, `next` was handled
    await until('the marker row', async () => (await delivery(witness, marker.event_id)) ?? undefined, POLL);
    expect(await delivery(partner, next.event_id)).toBeNull();
  });

  it('gives up after the retry window, and records a host that resolves to a private address', async () => {
    const r = await receiver(() => 503);
    closers.push(r.close);
    const partner = await newPartner();
    await webhooks.set(partner, r.url);
    const row = await db.webhookDelivery.create({
      data: {
        partnerId: partner,
        eventId: 'e-window',
        quoteHash: `0x${'11'.repeat(32)}`,
        version: 1,
        body: '{}',
        status: 'pending',
        nextAttemptAt: new Date(),
      },
    });
    const clock = new FakeClock(Date.now());
    const dispatcher = new WebhookDispatcher(
      new WebhooksRepository(db),
      httpSender(new AddressGuard(true), 300),
      { timeoutMs: 300, retry: { baseMs: 1000, maxMs: 1000, windowMs: 5000 }, cipher },
      silent,
      clock,
    );
    await expect(dispatcher.attempt(row.id)).resolves.toBeGreaterThan(900);
    expect(await db.webhookDelivery.findUnique({ where: { id: row.id } })).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: 503,
      lastError: 'answered 503',
    });
    clock.advance(4500); // the next wait would end past the 5 s window
    await expect(dispatcher.attempt(row.id)).resolves.toBeUndefined();
    expect(await db.webhookDelivery.findUnique({ where: { id: row.id } })).toMatchObject({
      status: 'failed',
      attempts: 2,
      nextAttemptAt: null,
    });

    // Production rules: a name resolving to loopback is refused at delivery time, and the refusal recorded.
    await db.webhook.update({ where: { partnerId: partner }, data: { url: `http://localhost:${r.port}/hook` } });
    const second = await db.webhookDelivery.create({
      data: {
        partnerId: partner,
        eventId: 'e-private',
        quoteHash: `0x${'22'.repeat(32)}`,
        version: 1,
        body: '{}',
        status: 'pending',
        nextAttemptAt: new Date(),
      },
    });
    const strict = new WebhookDispatcher(
      new WebhooksRepository(db),
      httpSender(new AddressGuard(false), 300),
      { timeoutMs: 300, retry: opts.retry, cipher },
      silent,
      new SystemClock(),
    );
    const sent = r.got.length;
    await expect(strict.attempt(second.id)).resolves.toBeGreaterThan(0);
    expect((await db.webhookDelivery.findUnique({ where: { id: second.id } }))?.lastError).toMatch(
      /^refused: localhost resolves to .*a private address$/,
    );
    expect(r.got).toHaveLength(sent);
  });

  it('enqueues again a pending delivery whose job was lost', async () => {
    const r = await receiver(() => 200);
    closers.push(r.close);
    const partner = await newPartner();
    await webhooks.set(partner, r.url);
    // As if the service died between writing the row and enqueueing its job.
    const row = await db.webhookDelivery.create({
      data: {
        partnerId: partner,
        eventId: 'e-lost',
        quoteHash: `0x${'33'.repeat(32)}`,
        version: 1,
        body: '{"x":1}',
        status: 'pending',
        nextAttemptAt: new Date(Date.now() - 60_000),
      },
    });
    expect(await worker.sweep()).toBeGreaterThanOrEqual(1);
    await until(
      'the swept delivery',
      async () => (await db.webhookDelivery.findUnique({ where: { id: row.id } }))?.status === 'delivered',
      POLL,
    );
    expect(r.got.filter((g) => g.headers['x-xchain-event-id'] === 'e-lost')).toHaveLength(1);
  });
});
