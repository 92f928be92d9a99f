import type { OrderUpdate } from '@xchain/contracts';
import { orderToWire, sampleOrder } from '@xchain/order-codec';
import { SystemClock } from '@xchain/service-kit';
import { type PrismaClient, createQuoteEngineDb } from '@xchain/quote-engine-db';
import { freshMigratedDatabase, truncate } from '@xchain/stack';
import { Pool } from 'pg';
import { ExpirySweep } from './expiry-sweep';
import { sqlExpiredQuotes } from './expiry.repository';
import { OrderUpdatePusher } from './order-updates';
import { sqlPushLog } from './order-view-push.repository';
import { OrderViewService } from './order-view.service';
import { OrderRepository } from './order.repository';
import { QuoteRepository } from '../quoting/quote.repository';

jest.setTimeout(30_000);

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const silent = { info: () => undefined, warn: () => undefined };
const T = new Date('2030-01-01T00:00:00Z');
const minutes = (m: number) => new Date(T.getTime() + m * 60_000);
const order = orderToWire(sampleOrder({}), []);

describe('expiry sweep on PostgreSQL', () => {
  let url: string;
  let db: Pool;
  let prisma: PrismaClient;

  /** An order retained until `retainedUntil`, optionally deposited and with an order view pushed with `pushed` as its status. */
  const insert = async (quoteHash: string, retainedUntil: Date, opts: { deposited?: boolean; pushed?: string | null } = {}) => {
    await db.query(
      `INSERT INTO orders (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, "order", response, created_at, expires_at, retained_until)
       VALUES ($1, 'cross_chain', 'ethereum', 'ethereum', 'cross_chain', false, false, 'keyless', $2::jsonb, $3::jsonb, now(), $4, $4)`,
      [
        quoteHash,
        JSON.stringify(order),
        JSON.stringify({ cross_chain: { amount_in: '1', amount_out: '1', min_amount_out: '1' } }),
        retainedUntil.toISOString(),
      ],
    );
    if (opts.deposited)
      await db.query(
        `INSERT INTO order_events (quote_hash, type, chain, tx_hash, occurred_at) VALUES ($1, 'deposited', 'ethereum', '0xaa', now())`,
        [quoteHash],
      );
    if (opts.pushed !== undefined)
      await db.query(`INSERT INTO order_view_pushes (quote_hash, version, digest, status) VALUES ($1, 1, 'd', $2)`, [
        quoteHash,
        opts.pushed,
      ]);
  };

  beforeAll(async () => {
    url = await freshMigratedDatabase('quote-engine', 'qe_expiry');
    db = new Pool({ connectionString: url, max: 2 });
    prisma = createQuoteEngineDb(url, 4);
  }, 60_000);

  afterAll(async () => {
    await prisma?.$disconnect();
    await db?.end();
  });

  beforeEach(() => truncate(url, 'quotes, orders, order_events, order_view_pushes'));

  it('selects the orders past retention, never deposited, whose last pushed view is not expired, in (retained_until, quote_hash) pages', async () => {
    await insert(hash(1), minutes(-10));
    await insert(hash(7), minutes(-10)); // same end as 1: after it by hash
    await insert(hash(2), minutes(-5), { pushed: 'quoted' });
    await insert(hash(3), minutes(-3), { pushed: null }); // pushed before the status was kept
    await insert(hash(4), minutes(-2), { pushed: 'expired' });
    await insert(hash(5), minutes(-1), { deposited: true });
    await insert(hash(6), minutes(1)); // still retained
    await insert(hash(8), minutes(-90)); // before the window asked for

    const quotes = sqlExpiredQuotes(prisma);
    const start = { retainedUntil: minutes(-60), quoteHash: '' };
    const all = await quotes.page(start, T, 10);
    expect(all.map((q) => q.quoteHash)).toEqual([hash(1), hash(7), hash(2), hash(3)]);
    expect(all[0]!.retainedUntil).toEqual(minutes(-10));

    const first = await quotes.page(start, T, 2);
    expect(first.map((q) => q.quoteHash)).toEqual([hash(1), hash(7)]);
    expect((await quotes.page(first[1]!, T, 2)).map((q) => q.quoteHash)).toEqual([hash(2), hash(3)]);
    expect((await quotes.page(first[0]!, T, 10)).map((q) => q.quoteHash)).toEqual([hash(7), hash(2), hash(3)]);
    expect((await quotes.page(start, minutes(-4), 10)).map((q) => q.quoteHash)).toEqual([hash(1), hash(7), hash(2)]);
  });

  it('pushes expired once per quote, recorded in order_view_pushes, with two replicas sweeping at once', async () => {
    const now = new Date();
    const ended = Array.from({ length: 6 }, (_, i) => hash(100 + i));
    for (const [i, h] of ended.entries()) await insert(h, new Date(now.getTime() - (i + 1) * 60_000));
    await insert(hash(200), new Date(now.getTime() + 3_600_000)); // still retained

    // The stream, as JetStream keeps it: one message per event id.
    const stream = new Map<string, OrderUpdate>();
    const replica = () => {
      const view = new OrderViewService({
        records: new OrderRepository(prisma, new QuoteRepository(prisma)),
        gasless: { get: async () => undefined },
        now: () => new Date(),
        graceMs: 86_400_000,
        vmOf: () => 'evm',
        assertChain: () => undefined,
        log: silent,
      });
      const pusher = new OrderUpdatePusher(
        view,
        sqlPushLog(prisma, async () => undefined, new SystemClock()),
        async (u) => {
          await new Promise((r) => setTimeout(r, 2));
          if (!stream.has(u.event_id)) stream.set(u.event_id, u);
        },
        new SystemClock(),
      );
      return new ExpirySweep(
        sqlExpiredQuotes(prisma),
        pusher,
        { intervalMs: 600_000, batch: 4, graceMs: 86_400_000 },
        silent,
        new SystemClock(),
      );
    };
    const [a, b] = [replica(), replica()];
    for (let run = 0; run < 3; run++) await Promise.all([a.runOnce(), b.runOnce()]);

    expect([...stream.values()].map((u) => [u.quote_hash, u.version, u.order.status, u.order.terminal]).sort()).toEqual(
      ended.map((h) => [h, 1, 'expired', true]),
    );
    const { rows } = await db.query<{ quote_hash: string; version: number; status: string }>(
      'SELECT quote_hash, version, status FROM order_view_pushes ORDER BY quote_hash',
    );
    expect(rows).toEqual(ended.map((h) => ({ quote_hash: h, version: 1, status: 'expired' })));
    expect(await a.runOnce()).toEqual({ swept: 0, failed: 0 });
  });
});
