import { type PrismaClient, createQuoteEngineDb } from '@xchain/quote-engine-db';
import { freshMigratedDatabase, truncate } from '@xchain/stack';
import { Pool } from 'pg';
import { SettlementRepository } from './settlement.repository';

jest.setTimeout(60_000);

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const TOKEN = '0x00000000000000000000000000000000000000aa';

describe('settlement decisions on PostgreSQL', () => {
  let url: string;
  let pool: Pool;
  const dbs: PrismaClient[] = [];

  beforeAll(async () => {
    url = await freshMigratedDatabase('quote-engine', 'qe_settle');
    pool = new Pool({ connectionString: url, max: 2 });
  });

  afterAll(async () => {
    await Promise.all(dbs.map((d) => d.$disconnect()));
    await pool?.end();
  });

  beforeEach(async () => {
    await truncate(url, 'settlements, quotes, order_events, order_view_pushes, fulfillment_samples');
  });

  /** A repository on its own connections, as another replica of the quote-engine would have. */
  const replica = () => {
    const db = createQuoteEngineDb(url, 4);
    dbs.push(db);
    return new SettlementRepository(db);
  };

  it('reserves inventory at most once: 12 deciders at once against a balance for 3 give exactly 3 fills', async () => {
    const a = replica();
    const b = replica();
    const decisions = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? a : b).decideFill({ quoteHash: hash(i), srcChain: 'base', dstChain: 'arbitrum' }, TOKEN, 100n, 300n, 'cancel'),
      ),
    );
    expect(decisions.filter((d) => d === 'fill')).toHaveLength(3);
    const { rows } = await pool.query<{ reserved: string; n: string }>(
      "SELECT SUM(reserved)::text AS reserved, COUNT(*)::text AS n FROM settlements WHERE reserved > 0 AND dst_chain = 'arbitrum'",
    );
    expect(rows[0]).toEqual({ reserved: '300', n: '3' });
    const refunds = await pool.query("SELECT step, reason FROM settlements WHERE decision = 'refund'");
    expect(refunds.rows).toHaveLength(9);
    expect(refunds.rows.every((r) => r.step === 'cancel' && r.reason === 'INVENTORY')).toBe(true);
  });

  it('decides an order once: a second decision, fill or refund, leaves the first standing', async () => {
    const repo = replica();
    const order = { quoteHash: hash(1), srcChain: 'base', dstChain: 'arbitrum' };
    expect(await repo.decideFill(order, TOKEN, 100n, 1000n, 'cancel')).toBe('fill');
    expect(await repo.decideFill(order, TOKEN, 100n, 0n, 'cancel')).toBe('fill');
    await repo.decideRefund(order, TOKEN, 'RETENTION', 'cancel');
    const { rows } = await pool.query('SELECT decision, reserved::text FROM settlements');
    expect(rows).toEqual([{ decision: 'fill', reserved: '100' }]);
  });

  it('frees a reservation when its fill is confirmed or given up, so the next order can use it', async () => {
    const repo = replica();
    const [x, y, z] = [1, 2, 3].map((n) => ({ quoteHash: hash(n), srcChain: 'base', dstChain: 'arbitrum' }));
    expect(await repo.decideFill(x!, TOKEN, 100n, 100n, 'cancel')).toBe('fill');
    expect(await repo.decideFill(y!, TOKEN, 100n, 100n, 'cancel')).toBe('refund');
    // The fill failed for good: the order becomes a refund (cancel first) and the inventory is free.
    expect(await repo.fillFailed(x!.quoteHash, 'cancel', 'fill: TX_REVERTED')).toBe(true);
    expect(await repo.fillFailed(x!.quoteHash, 'cancel', 'again')).toBe(false);
    expect(await repo.decideFill(z!, TOKEN, 100n, 100n, 'cancel')).toBe('fill');
    // Confirmed: settled, reservation released; a repeated confirmation moves nothing.
    expect(await repo.advance(z!.quoteHash, 'fill', null)).toBe(true);
    expect(await repo.advance(z!.quoteHash, 'fill', null)).toBe(false);
    const { rows } = await pool.query(
      'SELECT quote_hash, decision, reason, step, state, reserved::text FROM settlements ORDER BY quote_hash',
    );
    expect(rows).toEqual([
      { quote_hash: x!.quoteHash, decision: 'refund', reason: 'FILL_FAILED', step: 'cancel', state: 'open', reserved: '0' },
      { quote_hash: y!.quoteHash, decision: 'refund', reason: 'INVENTORY', step: 'cancel', state: 'open', reserved: '0' },
      { quote_hash: z!.quoteHash, decision: 'fill', reason: null, step: null, state: 'done', reserved: '0' },
    ]);
  });

  it('lists deposited orders without a decision, and not those already filled or refunded on chain', async () => {
    const repo = replica();
    for (const n of [1, 2, 3, 4]) {
      await pool.query(
        `INSERT INTO quotes (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, "order", response, expires_at, retained_until)
         VALUES ($1, 'cross_chain', 'base', 'arbitrum', 'cross_chain', false, false, 'keyless', '{}'::jsonb, '{}'::jsonb, now(), now() + interval '7 days')`,
        [hash(n)],
      );
    }
    const event = (n: number, type: string) =>
      pool.query(
        "INSERT INTO order_events (quote_hash, type, chain, tx_hash, amount, occurred_at) VALUES ($1, $2, 'base', $3, '5', now())",
        [hash(n), type, hash(100 + n)],
      );
    await event(1, 'deposited');
    await event(2, 'deposited');
    await event(2, 'fulfilled');
    await event(3, 'deposited');
    await repo.decideRefund({ quoteHash: hash(3), srcChain: 'base', dstChain: 'arbitrum' }, TOKEN, 'MISMATCH', 'cancel');
    // 4 was never deposited.
    const undecided = await repo.undecided(10);
    expect(undecided.map((u) => u.quoteHash)).toEqual([hash(1)]);
    expect(undecided[0]!.deposit).toEqual({ chain: 'base', amount: '5' });
  });
});
