import type { OrderEventType, OrderStatus, OrderWire } from '@xchain/contracts';
import { orderToWire, sampleOrder } from '@xchain/order-codec';
import { createQuoteEngineDb, type PrismaClient } from '@xchain/quote-engine-db';
import { partlyMigratedDatabase } from '@xchain/stack';
import { Client } from 'pg';
import { QuoteRepository } from '../quoting/quote.repository';
import { storedResponse } from '../quoting/stored-response';
import { type OrderRecord, type OrderRecords, OrderViewService, RELAY_FAILED, type RecordedSettlement } from './order-view.service';
import { OrderRepository } from './order.repository';

jest.setTimeout(60_000);

const HOUR = 3_600_000;
const silent = { info: () => undefined, warn: () => undefined };
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const REFUND_REASONS: Record<string, RecordedSettlement['reason']> = { INVENTORY: 'INSUFFICIENT_INVENTORY' };

/**
 * Migration 20261213100000_quotes_by_day on a database seeded in the shape before it: every order's
 * view is the same after it as before, the lists hold the orders (quotes seen used) in the same
 * order, and a quote nobody used is in no list but still answers by its hash.
 */
describe('migration quotes_by_day on a seeded database', () => {
  let old: Client;
  let db: PrismaClient;
  let rest: () => Promise<void>;
  const now = new Date();

  beforeAll(async () => {
    const made = await partlyMigratedDatabase('quote-engine', 'qe_45', '20261213100000_quotes_by_day');
    rest = made.rest;
    old = new Client({ connectionString: made.url });
    await old.connect();
    db = createQuoteEngineDb(made.url, 2);
  });
  afterAll(async () => {
    await old?.end();
    await db?.$disconnect();
  });

  /** The order view as the service builds it, over `records`. */
  const views = (records: OrderRecords) =>
    new OrderViewService({
      records,
      gasless: { get: async () => undefined },
      now: () => now,
      graceMs: 24 * HOUR,
      vmOf: () => 'evm',
      assertChain: () => undefined,
      log: silent,
    });

  /** What the repository before the migration read of a quote: its row, events, settlement and failure (its `record`). */
  const readBefore = async (quoteHash: string): Promise<OrderRecord | undefined> => {
    const q = (await old.query('SELECT * FROM quotes WHERE quote_hash = $1', [quoteHash])).rows[0];
    if (!q) return undefined;
    const events = (await old.query('SELECT * FROM order_events WHERE quote_hash = $1', [quoteHash])).rows;
    const s = (await old.query('SELECT decision, reason FROM settlements WHERE quote_hash = $1', [quoteHash])).rows[0];
    const reason = s?.reason ? REFUND_REASONS[s.reason] : undefined;
    return {
      order: {
        quoteHash: q.quote_hash,
        srcChain: q.src_chain,
        dstChain: q.dst_chain,
        gasless: q.gasless,
        order: q.order as OrderWire,
        response: storedResponse(q.response, q.order, q.retained_until, q.quote_hash),
        createdAt: q.created_at,
        expiresAt: q.expires_at,
        retainedUntil: q.retained_until,
      },
      events: events.map((e) => ({
        type: e.type as OrderEventType,
        chain: e.chain,
        txHash: e.tx_hash,
        blockNumber: e.block_number === null ? null : BigInt(e.block_number),
        occurredAt: e.occurred_at,
        amount: e.amount,
        recipient: e.recipient,
      })),
      ...(s ? { settlement: { decision: s.decision, ...(reason ? { reason } : {}) } } : {}),
      ...(q.failed_at ? { failure: { reason: q.failure_reason ?? RELAY_FAILED, message: q.failure_message ?? '', at: q.failed_at } } : {}),
    };
  };

  it('keeps every order view, lists the orders in the same order, and lists no quote nobody used', async () => {
    const order = orderToWire(sampleOrder({}), []);
    const response = {
      cross_chain: {
        quote_hash: 'x',
        amount_in: order.amount_in,
        amount_out: order.amount_out,
        min_amount_out: order.min_amount_out,
        expires_at: '2026-11-29T00:00:00Z',
        fee_breakdown: { components: [{ name: 'protocol_fee', side: 'src', native: '5', charged: '5', usd_micros: '5' }] },
      },
    };
    const quote = (n: number, retained: number, extra: Record<string, unknown> = {}) =>
      old.query(
        `INSERT INTO quotes (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, partner_id, "order", response,
           created_at, expires_at, retained_until, status, failure_reason, failure_message, failed_at, recipient, refund_address)
         VALUES ($1, 'cross_chain', 'ethereum', 'arbitrum', 'cross_chain', $2, false, 'api_key', 'ptn_a', $3, $4, $5, $5, $6, $7, $8, $9, $10,
           decode(substr($3::jsonb->>'recipient', 3), 'hex'), decode(substr($3::jsonb->>'refund_address', 3), 'hex'))`,
        [
          hash(n),
          extra['gasless'] ?? false,
          JSON.stringify(order),
          JSON.stringify({ cross_chain: { ...response.cross_chain, quote_hash: hash(n) } }),
          new Date(now.getTime() - (100 - n) * 60_000),
          new Date(now.getTime() + retained),
          extra['status'] ?? 'quoted',
          extra['reason'] ?? null,
          extra['message'] ?? null,
          extra['failedAt'] ?? null,
        ],
      );
    const event = (n: number, type: string) =>
      old.query(
        `INSERT INTO order_events (quote_hash, type, chain, tx_hash, block_number, amount, occurred_at) VALUES ($1, $2, 'ethereum', $3, 7, '100', $4)`,
        [hash(n), type, hash(1000 + n), new Date(now.getTime() - 60_000)],
      );
    const settle = (n: number, decision: string, reason: string | null) =>
      old.query(
        `INSERT INTO settlements (quote_hash, decision, reason, step, state, src_chain, dst_chain, dst_token) VALUES ($1, $2, $3, NULL, 'done', 'ethereum', 'arbitrum', 't')`,
        [hash(n), decision, reason],
      );
    // 1: filled. 2: refunded for want of inventory. 3: a gasless relay that failed. 4: a gasless
    // submission the relayer reported (a view pushed). 5: a quote nobody used. 6: one past
    // retention, `expired` pushed. 7: deposited, its depositor recorded.
    await quote(1, 24 * HOUR, { status: 'fulfilled' });
    await event(1, 'deposited');
    await event(1, 'fulfilled');
    await settle(1, 'fill', null);
    await quote(2, 24 * HOUR, { status: 'refunded' });
    await event(2, 'deposited');
    await event(2, 'refunded');
    await settle(2, 'refund', 'INVENTORY');
    await quote(3, 24 * HOUR, {
      gasless: true,
      status: 'failed',
      reason: 'SIMULATION_REVERTED',
      message: 'SIMULATION_REVERTED: x',
      failedAt: now,
    });
    await quote(4, 24 * HOUR, { gasless: true });
    await old.query(`INSERT INTO order_view_pushes (quote_hash, version, digest, status) VALUES ($1, 1, 'd', 'quoted')`, [hash(4)]);
    await quote(5, 24 * HOUR);
    await quote(6, -HOUR);
    await old.query(`INSERT INTO order_view_pushes (quote_hash, version, digest, status) VALUES ($1, 1, 'd', 'expired')`, [hash(6)]);
    await quote(7, 24 * HOUR, { status: 'deposited' });
    await event(7, 'deposited');
    await old.query(`INSERT INTO order_depositors (quote_hash, address, created_at) VALUES ($1, $2, now())`, [
      hash(7),
      Buffer.alloc(32, 7),
    ]);

    const all = [1, 2, 3, 4, 5, 6, 7].map(hash);
    const before = new Map<string, OrderStatus>();
    const viewsBefore = views({ find: readBefore, partnerPage: async () => [] });
    for (const h of all) before.set(h, await viewsBefore.get(h));
    expect([...before.values()].map((v) => v.status)).toEqual([
      'fulfilled',
      'refunded',
      'failed',
      'quoted',
      'quoted',
      'expired',
      'deposited',
    ]);

    await rest();

    const repo = new OrderRepository(db, new QuoteRepository(db));
    const after = views(repo);
    for (const h of all) expect(await after.get(h)).toEqual(before.get(h));
    // The orders: the quotes seen used; newest first as before; the two nobody used are in no list.
    const page = await repo.partnerPage({ partnerId: 'ptn_a', retainedAfter: new Date(now.getTime() - 24 * HOUR), limit: 10 });
    expect(page.map((r) => r.order.quoteHash)).toEqual([7, 4, 3, 2, 1].map(hash));
    const byDepositor = await repo.addressPage({ address: `0x${'07'.repeat(32)}`, retainedAfter: new Date(0), limit: 10 });
    expect(byDepositor.map((r) => r.order.quoteHash)).toEqual([hash(7)]);
    expect(
      (await db.order.findMany({ select: { quoteHash: true, status: true }, orderBy: { quoteHash: 'asc' } })).map((o) => [
        o.quoteHash,
        o.status,
      ]),
    ).toEqual([
      [hash(1), 'fulfilled'],
      [hash(2), 'refunded'],
      [hash(3), 'failed'],
      [hash(4), 'quoted'],
      [hash(7), 'deposited'],
    ]);
    // Every retained quote is in its day; the pushed view of a quote that is no order is gone with it.
    expect(Number((await old.query('SELECT count(*) AS n FROM quotes')).rows[0].n)).toBe(7);
    expect((await old.query('SELECT quote_hash FROM order_view_pushes ORDER BY quote_hash')).rows.map((r) => r.quote_hash)).toEqual([
      hash(4),
    ]);
  });
});
