import { jetstream } from '@nats-io/jetstream';
import { PermissionViolationError, connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import {
  AdminAdjustFundingRpc,
  AuthenticateKeyRpc,
  LedgerHoldRpc,
  PRICES_BUCKET,
  inboxPrefixOf,
  orderEventSubject,
  type OrderEvent,
  type Price,
} from '@xchain/contracts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '@xchain/stack';
import { Client } from 'pg';
import { type E2eStack, startE2eStack } from '../support/e2e-stack';
import { expectApiError, gatewayClient } from '../support/http';
import { EVM_REFUND, EVM_USER, T, USDC_ETH_TO_ARB } from '../support/registry-fixture';

/**
 * D14: every attack here worked from a plain loopback NATS client before the bus was locked down.
 * Each now fails at the bus: no connection without credentials, and each NATS user (the
 * services', the operator's) may publish and subscribe only what the contracts declare. The
 * clients are plain `@nats-io/transport-node` connections, as an attacker would write them.
 */
jest.setTimeout(60_000);

const SERVICES = ['gateway', 'quote-engine', 'price-oracle', 'gasless-relayer', 'partner-service'] as const;
const encoder = new TextEncoder();
const REFERRER = '0x3333333333333333333333333333333333333333';
const json = (v: unknown) => encoder.encode(JSON.stringify(v));

describe('the NATS bus refuses what a caller is not declared for (D14)', () => {
  let e2e: E2eStack;
  let natsUrl: string;
  let partnerId: string;
  const open: NatsConnection[] = [];

  /** A raw client with one of this stack's users: a stolen service credential at best. */
  const as = async (user: string) => {
    const { password } = e2e.stack.bus.credentials(user);
    const nc = await connect({ servers: natsUrl, user, pass: password, inboxPrefix: inboxPrefixOf(user), reconnect: false });
    open.push(nc);
    return nc;
  };
  /** The server's "Permissions Violation" for exactly this operation and subject (a request wraps it as its cause). */
  const isViolation = (err: unknown, operation: 'publish' | 'subscription', subject: string) => {
    const pv =
      err instanceof PermissionViolationError
        ? err
        : err instanceof Error && err.cause instanceof PermissionViolationError
          ? err.cause
          : undefined;
    return pv?.operation === operation && pv.subject === subject;
  };
  /** A request the bus must refuse: resolves with the refusal (never with an answer). */
  const refusedRequest = async (nc: NatsConnection, subject: string, body: unknown, headers?: Record<string, string>) => {
    const h = headers ? natsHeaders() : undefined;
    for (const [k, v] of Object.entries(headers ?? {})) h?.set(k, v);
    const err = await nc.request(subject, json(body), { timeout: 5000, ...(h ? { headers: h } : {}) }).then(
      (m) => new Error(`answered: ${m.string()}`),
      (e: unknown) => e,
    );
    expect(isViolation(err, 'publish', subject)).toBe(true);
  };
  /** A subscription the bus must refuse: resolves once the server's refusal arrives. */
  const refusedSubscription = (nc: NatsConnection, subject: string, queue?: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no refusal of ${subject} within 5 s`)), 5000);
      nc.subscribe(subject, {
        ...(queue ? { queue } : {}),
        callback: (err, msg) => {
          clearTimeout(timer);
          if (err && isViolation(err, 'subscription', subject)) resolve();
          else reject(err ?? new Error(`received ${msg.subject} on ${subject}`));
        },
      });
    });
  const balance = async (email: string) => {
    const shown = await e2e.admin('show-partner', '--email', email);
    expect(shown.code).toBe(0);
    return shown.out.balance_usd_micros as string;
  };

  beforeAll(async () => {
    e2e = await startE2eStack();
    natsUrl = e2e.stack.env['NATS_URL']!;
    const created = await e2e.admin('create-partner', '--email', 'victim@example.com');
    expect(created.code).toBe(0);
    partnerId = created.out.partner_id;
  }, 120_000);

  afterAll(async () => {
    for (const nc of open) await nc.close().catch(() => undefined);
    await e2e?.stop();
  });

  it('refuses a connection without credentials, with a wrong password, or as an unknown user', async () => {
    await expect(connect({ servers: natsUrl, reconnect: false })).rejects.toThrow(/Authorization/i);
    await expect(connect({ servers: natsUrl, user: 'gateway', pass: 'guessed', reconnect: false })).rejects.toThrow(/Authorization/i);
    await expect(connect({ servers: natsUrl, user: 'admin', pass: 'admin', reconnect: false })).rejects.toThrow(/Authorization/i);
  });

  it("refuses the gateway's user on ledger and operator subjects, whatever its x-caller says", async () => {
    const gw = await as('gateway');
    const forged = { 'x-caller': JSON.stringify({ kind: 'internal', service: 'gasless-relayer' }) };
    // The million-dollar credit of the issue: an operator action, sent by the gateway's user.
    await refusedRequest(
      gw,
      AdminAdjustFundingRpc.subject,
      { email: 'victim@example.com', direction: 'credit', usd_micros: '1000000000000', reason: 'x' },
      forged,
    );
    await refusedRequest(
      gw,
      LedgerHoldRpc.subject,
      { partner_id: partnerId, quote_hash: `0x${'1'.repeat(64)}`, amount_usd_micros: '1' },
      forged,
    );
    // No service may send operator actions either; the operator may send nothing else.
    for (const user of SERVICES.filter((s) => s !== 'gateway')) {
      await refusedRequest(
        await as(user),
        AdminAdjustFundingRpc.subject,
        { email: 'victim@example.com', direction: 'credit', usd_micros: '1', reason: 'x' },
        forged,
      );
    }
    await refusedRequest(await as('operator'), LedgerHoldRpc.subject, {
      partner_id: partnerId,
      quote_hash: `0x${'2'.repeat(64)}`,
      amount_usd_micros: '1',
    });
    expect(await balance('victim@example.com')).toBe('0');
  });

  it("refuses subscribing to everything or to another user's reply inbox (where new key secrets travel)", async () => {
    for (const user of [...SERVICES, 'operator']) {
      const nc = await as(user);
      await refusedSubscription(nc, '>');
      await refusedSubscription(nc, '_INBOX.>');
      // The gateway's inbox carries CreatePartnerKey answers; the operator's, create-key answers.
      for (const victim of ['gateway', 'operator'].filter((v) => v !== user)) await refusedSubscription(nc, `${inboxPrefixOf(victim)}.>`);
    }
  });

  it('refuses anyone but the partner-service answering partner.v1.authenticate_key, so no made-up key is accepted', async () => {
    for (const user of [...SERVICES.filter((s) => s !== 'partner-service'), 'operator']) {
      const nc = await as(user);
      await refusedSubscription(nc, AuthenticateKeyRpc.subject);
      await refusedSubscription(nc, AuthenticateKeyRpc.subject, 'partner-service');
    }
    const madeUp = gatewayClient(e2e.gatewayUrl, { apiKey: `xk_${'a'.repeat(43)}` });
    await expectApiError(madeUp.previewQuote(USDC_ETH_TO_ARB), { http: 401, reason: 'INVALID_API_KEY' });
  });

  it('lets only the price-oracle write the prices_v1 bucket', async () => {
    const forged: Price = {
      price_id: 'ethereum',
      price: '1',
      expo: 0,
      conf: '0',
      publish_time: Math.floor(Date.now() / 1000) + 3600,
      source: 'pyth',
    };
    for (const user of [...SERVICES.filter((s) => s !== 'price-oracle'), 'operator']) {
      await refusedRequest(await as(user), `$KV.${PRICES_BUCKET}.ethereum`, forged);
    }
  });

  it('ignores a price from the future even from the oracle’s own user (a forged or clock-skewed source)', async () => {
    const oracle = await as('price-oracle');
    // 1 ETH into Arbitrum USDC at the honest price, before the forgery.
    const ethToUsdc = { ...USDC_ETH_TO_ARB, src_token: T.ethereum.ETH, amount: '1000000000000000000' };
    const usdcOut = async () => BigInt((await gatewayClient(e2e.gatewayUrl).previewQuote(ethToUsdc)).amount_out);
    const honest = await usdcOut();
    const at = Math.floor(Date.now() / 1000) + 3600;
    const ahead: Price = { price_id: 'ethereum', price: '1', expo: 0, conf: '0', publish_time: at, source: 'pyth' };
    await jetstream(oracle).publish(`$KV.${PRICES_BUCKET}.ethereum`, JSON.stringify(ahead));
    const log = join(e2e.logDir, 'quote-engine.log');
    const refused = () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .some((l) => l.includes('ignored a price from the future') && l.includes(`"publish_time":${at}`));
    await until('the quote-engine to log the price from the future', refused, { timeoutMs: 10_000, everyMs: 100 });
    expect(refused()).toBe(true);
    // The honest price stays in use: 1 ETH still buys about what it did (the file source walks a
    // little), not the 1 USDC that the forged price of 1 USD per ETH would give.
    const after = await usdcOut();
    expect(after * 10n).toBeGreaterThan(honest * 9n);
    expect(after).toBeGreaterThan(1_000_000n * 100n);
  });

  it('refuses publishing orders.v1.fulfilled to every user but the quote-engine (whose chain watchers read fills), so no referral accrual can be forged', async () => {
    // Real keyed quotes with a referrer: a `fulfilled` event that got through would accrue for them.
    const key = (await e2e.admin('create-key', '--email', 'victim@example.com', '--name', 'referrals')).out.secret as string;
    const keyed = gatewayClient(e2e.gatewayUrl, { apiKey: key });
    const referredQuote = async () => {
      const q = await keyed.getQuote({
        ...USDC_ETH_TO_ARB,
        recipient: EVM_USER,
        refund_address: EVM_REFUND,
        referrers: [{ address: REFERRER, bps: 10 }],
      });
      if (!('cross_chain' in q)) throw new Error(`expected a cross-chain quote, got ${JSON.stringify(q)}`);
      return q.cross_chain.quote_hash;
    };
    const [forgedFor, markerFor] = [await referredQuote(), await referredQuote()];
    const fulfilled = (quoteHash: string): OrderEvent => ({
      type: 'fulfilled',
      quote_hash: quoteHash,
      chain: 'arbitrum',
      tx_hash: '0xf',
      occurred_at: new Date().toISOString(),
    });
    const event = fulfilled(forgedFor);
    for (const user of [...SERVICES.filter((s) => s !== 'quote-engine'), 'operator']) {
      const nc = await as(user);
      const err = await jetstream(nc)
        .publish(orderEventSubject('fulfilled'), JSON.stringify(event), { timeout: 5000 })
        .then(
          () => new Error('published'),
          (e: unknown) => e,
        );
      expect([user, isViolation(err, 'publish', orderEventSubject('fulfilled'))]).toEqual([user, true]);
    }
    // The marker: the one user allowed publishes a later fill; the referrals consumer reads the
    // stream in order, so once the marker has accrued, anything published before it was handled.
    const allowed = await as('quote-engine');
    await jetstream(allowed).publish(orderEventSubject('fulfilled'), JSON.stringify(fulfilled(markerFor)), { timeout: 5000 });
    const db = new Client({ connectionString: e2e.databaseUrl('partner_service') });
    await db.connect();
    const accruals = async (quoteHash: string) =>
      (await db.query('SELECT count(*)::int AS n FROM referral_accruals WHERE quote_hash = $1', [quoteHash])).rows[0].n as number;
    try {
      await until('the marker fill to accrue', async () => (await accruals(markerFor)) > 0, { timeoutMs: 15_000, everyMs: 100 });
      expect(await accruals(forgedFor)).toBe(0);
    } finally {
      await db.end();
    }
  });

  it('still runs the operator tool, as the operator user only', async () => {
    const made = await e2e.admin('create-partner', '--email', 'still-works@example.com');
    expect(made).toMatchObject({ code: 0, out: { email: 'still-works@example.com' } });
    const credited = await e2e.admin('credit', '--email', 'still-works@example.com', '--usd-micros', '5000000', '--reason', 'wire 1');
    expect(credited.code).toBe(0);
    expect(await balance('still-works@example.com')).toBe('5000000');
  });
});
