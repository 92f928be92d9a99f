import { createHmac } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { XchainClient } from '@xchain/client';
import { type OrderStatus, type OrderUpdate, type WebhookDelivery, orderUpdateSubject } from '@xchain/contracts';
import { SERVICES, startBuiltService, until, type UntilOptions } from '@xchain/stack';
import { type E2eStack, startE2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { apiErrorView, crossChainOf, expectApiError, gatewayClient } from '../support/http';
import { PartnerSession } from '../support/partner-session';
import { EVM_REFUND, EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';

jest.setTimeout(120_000);

const STAND_IN = 'order-updates-stand-in';
const TIMEOUT_MS = 500;

interface Received {
  eventId: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The sender hung up before an answer (its timeout). */
  abandoned: boolean;
}

/**
 * A partner's webhook endpoint on a free loopback port. `answer(eventId, nth)` gives the status of
 * the nth delivery of that event; undefined: take the request and never answer.
 */
async function receiver(answer: (eventId: string, nth: number) => number | undefined) {
  const got: Received[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const eventId = String(req.headers['x-xchain-event-id']);
      const entry: Received = { eventId, headers: req.headers, body, abandoned: false };
      got.push(entry);
      const status = answer(eventId, got.filter((g) => g.eventId === eventId).length);
      if (status !== undefined) res.writeHead(status).end();
      else res.on('close', () => (entry.abandoned = true));
    });
  });
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/xchain/hook`,
    got,
    of: (eventId: string) => got.filter((g) => g.eventId === eventId),
    close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

/** What a partner's receiver checks: the HMAC of "t.body" under its secret. */
function signedWith(secret: string, r: Received): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['x-xchain-signature']));
  return !!m && createHmac('sha256', secret).update(`${m[1]}.${r.body}`).digest('hex') === m[2];
}

// Not faster: these polls share the partner's rate-limit budget with the test's own calls.
const POLL: UntilOptions = { timeoutMs: 20_000, everyMs: 300 };

/** Partner webhooks (D13) through the gateway, against the real partner-service, Redis and NATS. */
describe('partner webhooks', () => {
  let e2e: E2eStack;
  let nc: NatsConnection;
  let g: GaslessClient;
  const closers: (() => Promise<void>)[] = [];
  /** The gateway as a partner session sees it, or (no token) as a caller without one. */
  const as = (token?: string) => gatewayClient(e2e.gatewayUrl, token === undefined ? {} : { sessionToken: token });
  type WebhookBody = Parameters<XchainClient['setPartnerWebhook']>[0];
  /** Sets the webhook; the answer carries its secret (shown only here). */
  const setWebhook = (token: string, url: string) => as(token).setPartnerWebhook({ url });
  /** A partner with a session and an API key. */
  const partner = (email: string) => PartnerSession.create(e2e, email, { key: 'main' });
  /** A quote made with the partner's key, and its order view as the gateway serves it. */
  const quoted = async (apiKey: string) => {
    const api = gatewayClient(e2e.gatewayUrl, { apiKey });
    const hash = crossChainOf(await api.getQuote({ ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND })).quote_hash;
    const view: OrderStatus = await api.getOrder({ quote_hash: hash });
    return { hash, view };
  };
  /**
   * Publishes an update as the quote-engine would (a test user that may publish only that). Versions
   * from 1001 up, so they never meet the quote-engine's own (1, 2, …) for the same order.
   */
  const publish = async (partnerId: string, hash: string, view: OrderStatus, version: number): Promise<OrderUpdate> => {
    const u: OrderUpdate = {
      event_id: `${hash}:${version}`,
      quote_hash: hash,
      version,
      partner_id: partnerId,
      occurred_at: new Date().toISOString(),
      order: view,
    };
    // The stream exists once the partner-service or the quote-engine made it: retry until it takes the message.
    await until(
      'the stream to take the update',
      async () => (await jetstream(nc).publish(orderUpdateSubject(hash), JSON.stringify(u)), true),
      POLL,
    );
    return u;
  };
  const deliveries = (token: string, query: Parameters<XchainClient['listPartnerWebhookDeliveries']>[0] = {}) =>
    as(token).listPartnerWebhookDeliveries(query);
  const deliveryOf = async (token: string, eventId: string) =>
    (await deliveries(token, { page_size: 200 })).deliveries.find((d) => d.event_id === eventId);

  let alice: PartnerSession;
  let bob: PartnerSession;

  beforeAll(async () => {
    e2e = await startE2eStack(
      {
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        WEBHOOK_BACKOFF_BASE_MS: '300',
        WEBHOOK_BACKOFF_MAX_MS: '600',
        PRICE_POLL_MS: '600000',
        PRICE_MAX_AGE_SECS: '7200',
        RELAY_POLL_MS: '200',
        RELAY_SWEEP_MS: '1000',
        CHAIN_WATCH_POLL_MS: '300',
        WEBHOOK_SWEEP_MS: '1000',
      },
      { testUsers: { [STAND_IN]: { publish: ['orders.v1.updated.*'] } }, devnet: { chains: ['base'] } },
    );
    nc = await e2e.connectAs(STAND_IN);
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    alice = await partner('alice@example.com');
    bob = await partner('bob@example.com');
  }, 180_000);

  afterAll(async () => {
    for (const c of closers) await c();
    await nc?.close();
    await e2e?.stop();
  });

  it('refuses unusable URLs and callers without a session, and has no webhook until one is set', async () => {
    await expectApiError(as().setPartnerWebhook({ url: 'https://hooks.example.com/x' }), {
      http: 401,
      code: 16,
      reason: 'MISSING_CREDENTIALS',
    });
    await expectApiError(as().listPartnerWebhookDeliveries(), { http: 401, code: 16, reason: 'MISSING_CREDENTIALS' });
    /** What refusing `body` says; some bodies are malformed on purpose: the gateway, not the client, judges them. */
    const refused = (body: unknown) =>
      as(alice.token)
        .setPartnerWebhook(body as WebhookBody)
        .then((ok) => {
          throw new Error(`expected a refusal, the webhook was set: ${JSON.stringify(ok)}`);
        }, apiErrorView);
    // IPv6 hosts that carry a loopback, metadata or reserved IPv4 address (compatible, translated, 6to4, Teredo), and a URL over 2048 characters, too.
    const embedded = [
      'https://[::7f00:1]/x',
      'https://[::ffff:0:7f00:1]/x',
      'https://[2002:7f00:1::]/x',
      'https://[2002:a9fe:a9fe::]/x',
      'https://[2001::1]/x',
    ];
    for (const bad of [
      'http://hooks.example.com/x',
      'https://user:pw@hooks.example.com/x',
      'https://10.0.0.7/x',
      'https://169.254.169.254/latest',
      'not a url',
      ...embedded,
      `https://hooks.example.com/${'a'.repeat(2049 - 26)}`,
    ]) {
      expect([bad, await refused({ url: bad })]).toEqual([
        bad,
        expect.objectContaining({ http: 400, code: 3, reason: 'INVALID_WEBHOOK_URL', fields: ['url'] }),
      ]);
    }
    // No URL at all: refused by the request schema already.
    expect(await refused({})).toMatchObject({ http: 400, code: 3, fields: ['url'] });
    await expectApiError(as(alice.token).getPartnerWebhook(), { http: 404, code: 5, reason: 'WEBHOOK_NOT_FOUND' });
    expect(await as(alice.token).call('DeletePartnerWebhook')).toMatchObject({ status: 200, body: {} });
  });

  it('delivers a signed order.updated event, retried after two 500s, once; a redelivered update adds nothing', async () => {
    const r = await receiver((_id, nth) => (nth <= 2 ? 500 : 200));
    closers.push(r.close);
    const set = await as(alice.token).call('SetPartnerWebhook', { url: r.url });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ url: r.url, secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/), created_at: expect.any(String) });
    const secret = set.data.secret;
    expect(await as(alice.token).call('GetPartnerWebhook')).toMatchObject({
      status: 200,
      body: { url: r.url, created_at: set.data.created_at },
    });
    expect(JSON.stringify((await as(alice.token).call('GetPartnerWebhook')).body)).not.toContain(secret);

    const { hash, view } = await quoted(alice.key);
    const u = await publish(alice.id, hash, view, 1001);
    await publish(alice.id, hash, view, 1001); // the same update again (a redelivery)
    const done = await until(
      'the delivery to succeed',
      async () => {
        const d = await deliveryOf(alice.token, u.event_id);
        return d?.status === 'delivered' ? d : undefined;
      },
      POLL,
    );
    expect(done).toEqual({
      id: expect.stringMatching(/^whd_[0-9]+$/),
      event_id: u.event_id,
      quote_hash: hash,
      version: 1001,
      status: 'delivered',
      attempts: 3,
      last_status_code: 200,
      created_at: expect.any(String),
      delivered_at: expect.any(String),
    });
    const seen = r.of(u.event_id);
    expect(seen).toHaveLength(3);
    for (const s of seen) {
      expect(signedWith(secret, s)).toBe(true);
      expect(s.headers['content-type']).toBe('application/json');
    }
    expect(JSON.parse(seen[0]!.body)).toEqual({
      id: u.event_id,
      type: 'order.updated',
      created_at: u.occurred_at,
      version: 1001,
      data: view,
    });
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);

    // A later update of the order is consumed after the duplicate: once it is delivered, the
    // duplicate has been seen, and it made no second delivery.
    const later = await publish(alice.id, hash, view, 1002);
    await until('the later delivery', async () => (await deliveryOf(alice.token, later.event_id))?.status === 'delivered', POLL);
    expect(r.of(u.event_id)).toHaveLength(3);
    expect((await deliveries(alice.token)).deliveries.filter((d) => d.event_id === u.event_id)).toHaveLength(1);
  });

  it('bounds each attempt at an endpoint that never answers and keeps the delivery pending with a next attempt', async () => {
    const silent = await receiver(() => undefined);
    closers.push(silent.close);
    const before = (await setWebhook(alice.token, 'https://hooks.example.com/old')).secret;
    const secret = (await setWebhook(alice.token, silent.url)).secret;
    expect(secret).not.toBe(before); // each PUT rotates the secret
    const { hash, view } = await quoted(alice.key);
    const u = await publish(alice.id, hash, view, 1001);
    // Three attempts, each given up by the sender at its timeout (it hung up, we never answered).
    await until('three abandoned attempts', async () => silent.of(u.event_id).filter((s) => s.abandoned).length >= 3, POLL);
    const pending = await until(
      'the delivery log to show them',
      async () => {
        const d = await deliveryOf(alice.token, u.event_id);
        return d && d.attempts >= 3 ? d : undefined;
      },
      POLL,
    );
    expect(pending).toMatchObject({
      status: 'pending',
      last_error: `no answer within ${TIMEOUT_MS} ms`,
      next_attempt_at: expect.any(String),
    });
    expect(pending.last_status_code).toBeUndefined();
    expect(pending.delivered_at).toBeUndefined();
    expect(signedWith(secret, silent.of(u.event_id)[0]!)).toBe(true);
    expect(signedWith(before, silent.of(u.event_id)[0]!)).toBe(false);

    // Removing the webhook stops it: the pending delivery fails, and a new update delivers nothing.
    expect(await as(alice.token).call('DeletePartnerWebhook')).toMatchObject({ status: 200, body: {} });
    await expectApiError(as(alice.token).getPartnerWebhook(), { http: 404, code: 5, reason: 'WEBHOOK_NOT_FOUND' });
    expect(await deliveryOf(alice.token, u.event_id)).toMatchObject({ status: 'failed', last_error: 'the webhook was removed' });
    expect((await deliveryOf(alice.token, u.event_id))?.next_attempt_at).toBeUndefined();
    const afterRemoval = await publish(alice.id, hash, view, 1002);
    // Bob's update is consumed after it: once Bob's is delivered, Alice's was handled.
    const bobs = await receiver(() => 204);
    closers.push(bobs.close);
    expect((await as(bob.token).call('SetPartnerWebhook', { url: bobs.url })).status).toBe(200);
    const bobQuote = await quoted(bob.key);
    const marker = await publish(bob.id, bobQuote.hash, bobQuote.view, 1001);
    await until("Bob's delivery", async () => (await deliveryOf(bob.token, marker.event_id))?.status === 'delivered', POLL);
    expect(await deliveryOf(alice.token, afterRemoval.event_id)).toBeUndefined();
    expect(silent.of(afterRemoval.event_id)).toEqual([]);
  });

  it('shows each partner its own deliveries only, newest first, paged with a cursor', async () => {
    const all = (await deliveries(alice.token, { page_size: 200 })).deliveries;
    expect(all.length).toBeGreaterThanOrEqual(3);
    const bobs = (await deliveries(bob.token, { page_size: 200 })).deliveries;
    expect(bobs.length).toBeGreaterThanOrEqual(1);
    const aliceIds = new Set(all.map((d) => d.id));
    expect(bobs.some((d) => aliceIds.has(d.id))).toBe(false);
    const ids = all.map((d) => Number(d.id.slice(4)));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const paged: WebhookDelivery[] = [];
    let cursor = '';
    do {
      const page = await deliveries(alice.token, { page_size: 1, ...(cursor ? { cursor } : {}) });
      expect(page.deliveries).toHaveLength(1);
      paged.push(...page.deliveries);
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged.map((d) => d.id)).toEqual(all.map((d) => d.id));
    await expectApiError(deliveries(alice.token, { cursor: 'garbage' }), { http: 400, code: 3, reason: 'INVALID_CURSOR' });
    await expectApiError(deliveries(alice.token, { page_size: 0 }), { http: 400, code: 3, reason: 'INVALID_PAGE_SIZE' });
  });

  it('survives a kill -9 of the partner-service: a pending delivery completes, a delivered one is not sent again', async () => {
    const carl = await partner('carl@example.com');
    const { hash, view } = await quoted(carl.key);
    let open = false;
    // Version 1002 is refused until `open`; everything else is taken at once.
    const r = await receiver((id) => (id === `${hash}:1002` && !open ? 500 : 200));
    closers.push(r.close);
    const secret = (await setWebhook(carl.token, r.url)).secret;
    const done = await publish(carl.id, hash, view, 1001);
    await until('the first delivery', async () => (await deliveryOf(carl.token, done.event_id))?.status === 'delivered', POLL);
    const pending = await publish(carl.id, hash, view, 1002);
    await until('two failed attempts', async () => ((await deliveryOf(carl.token, pending.event_id))?.attempts ?? 0) >= 2, POLL);

    const service = e2e.stack.services.get('partner-service')!;
    const exited = new Promise((res) => service.child.once('exit', res));
    service.child.kill('SIGKILL');
    await exited;
    open = true;
    const spec = SERVICES.find((s) => s.name === 'partner-service')!;
    e2e.stack.services.set(
      'partner-service',
      await startBuiltService({
        spec,
        port: e2e.ports['partner-service'],
        env: e2e.stack.envFor('partner-service'),
        logFile: join(e2e.logDir, 'partner-service.log'),
      }),
    );
    const after = await until(
      'the pending delivery after the restart',
      async () => {
        const d = await deliveryOf(carl.token, pending.event_id);
        return d?.status === 'delivered' ? d : undefined;
      },
      { ...POLL, timeoutMs: 60_000 },
    );
    expect(after.attempts).toBeGreaterThanOrEqual(3);
    // Every attempt the receiver saw was counted (an attempt is counted when it is claimed, so the
    // one the kill interrupted may never have reached it), at least one refused and the last one taken.
    expect(r.of(pending.event_id).length).toBeLessThanOrEqual(after.attempts);
    expect(r.of(pending.event_id).length).toBeGreaterThanOrEqual(2);
    for (const s of r.got) expect(signedWith(secret, s)).toBe(true);
    // The delivered one was not sent again; a new update goes out once, after both.
    const third = await publish(carl.id, hash, view, 1003);
    await until('a delivery after the restart', async () => (await deliveryOf(carl.token, third.event_id))?.status === 'delivered', POLL);
    expect(r.of(done.event_id)).toHaveLength(1);
    expect(r.of(third.event_id)).toHaveLength(1);
  });

  it("receives the quote-engine's own updates of a gasless order quoted with the partner's key", async () => {
    const r = await receiver(() => 200);
    closers.push(r.close);
    const secret = (await setWebhook(bob.token, r.url)).secret;
    const user = g.newUser();
    await g.mint('base', LOCAL_TOKENS.base.USDC, user.address, 50_000_000n);
    const q = await g.gaslessQuote('base', LOCAL_TOKENS.base.USDC, user.address, '20000000', { 'x-api-key': bob.key });
    expect((await g.submit(await g.evmBody(user, q, true))).body.status).toBe('queued');
    const events = () =>
      r.got
        .filter((s) => (JSON.parse(s.body) as { data: OrderStatus }).data.quote_hash === q['quote_hash'])
        .map((s) => JSON.parse(s.body) as { id: string; version: number; data: OrderStatus });
    await until(
      'the deposited view',
      async () => events().some((e) => e.data.status === 'deposited' && e.data.gasless?.status === 'confirmed'),
      { ...POLL, timeoutMs: 60_000 },
    );
    for (const s of r.got) expect(signedWith(secret, s)).toBe(true);
    const versions = [...new Set(events().map((e) => e.version))].sort((a, b) => a - b);
    expect(versions[0]).toBe(1);
    expect(versions).toEqual(versions.map((_, i) => i + 1)); // every version, each delivered
    // Deliveries may arrive out of order: the highest version is the order as it stands.
    const newest = events().reduce((a, b) => (b.version > a.version ? b : a));
    expect(newest.data).toEqual(await g.api.getOrder({ quote_hash: q['quote_hash'] }));
    const log = (await deliveries(bob.token, { page_size: 200 })).deliveries.filter((d) => d.quote_hash === q['quote_hash']);
    expect(log.map((d) => d.status)).toEqual(log.map(() => 'delivered'));
    expect(log.map((d) => d.version).sort((a, b) => a - b)).toEqual(versions);
  });

  it('never writes a webhook secret to a log', async () => {
    const secret = (await setWebhook(bob.token, 'https://hooks.example.com/never-called')).secret;
    const logs = readdirSync(e2e.logDir)
      .map((f) => readFileSync(join(e2e.logDir, f), 'utf8'))
      .join('\n');
    expect(logs.length).toBeGreaterThan(1000);
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(secret.slice(-20));
  });
});
