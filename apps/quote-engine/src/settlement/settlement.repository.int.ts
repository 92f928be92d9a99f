import { type PrismaClient, createQuoteEngineDb } from '@xchain/quote-engine-db';
import { SystemClock } from '@xchain/service-kit';
import { freshMigratedDatabase, truncate } from '@xchain/stack';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import { claimBatchKey } from '@xchain/svm-orders';
import { Pool } from 'pg';
import { SettlementRepository } from './settlement.repository';
import { InventoryRepository } from '../inventory/inventory.repository';

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
    await truncate(url, 'settlements, quotes, orders, order_events, order_view_pushes, fulfillment_samples');
  });

  /** A repository on its own connections, as another replica of the quote-engine would have. */
  const replica = () => {
    const db = createQuoteEngineDb(url, 4);
    dbs.push(db);
    return new SettlementRepository(db, new SystemClock());
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
    // What the inventory reads back: per token, and every token's at once.
    const inventory = new InventoryRepository(dbs[0]!);
    expect(await inventory.reservedBy('arbitrum', TOKEN)).toBe(300n);
    expect(await inventory.reservedAll()).toEqual(new Map([[`arbitrum:${TOKEN}`, 300n]]));
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
        `INSERT INTO orders (created_at, quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, "order", response, expires_at, retained_until)
         VALUES (now(), $1, 'cross_chain', 'base', 'arbitrum', 'cross_chain', false, false, 'keyless', '{}'::jsonb, '{}'::jsonb, now(), now() + interval '7 days')`,
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

  describe('claims (D15)', () => {
    const USDC = `0x${'c6'.repeat(32)}`;
    const SOL = `0x${'00'.repeat(32)}`;

    /** A quote from `src`, deposited (`amount` of `token`), decided for a fill. */
    const filledOrder = async (repo: SettlementRepository, n: number, src: string, token: string, amount: bigint) => {
      await pool.query(
        `INSERT INTO orders (created_at, quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, "order", response, expires_at, retained_until)
         VALUES (now(), $1, 'cross_chain', $2, 'arbitrum', 'cross_chain', false, false, 'keyless', $3::jsonb, '{}'::jsonb, now(), now() + interval '7 days')`,
        [hash(n), src, JSON.stringify({ src_token: token })],
      );
      await pool.query(
        "INSERT INTO order_events (quote_hash, type, chain, tx_hash, amount, occurred_at) VALUES ($1, 'deposited', $2, $3, $4, now())",
        [hash(n), src, hash(100 + n), amount.toString()],
      );
      expect(await repo.decideFill({ quoteHash: hash(n), srcChain: src, dstChain: 'arbitrum' }, TOKEN, 1n, 10n ** 18n, 'refund')).toBe(
        'fill',
      );
    };

    it('a confirmed fill from Solana is due; Solana batches hold one token each; two replicas put each deposit in one batch, once', async () => {
      const [a, b] = [replica(), replica()];
      const usdc = [1, 2, 3, 4, 5, 6];
      for (const n of usdc) await filledOrder(a, n, 'solana', USDC, 1_000_000n * BigInt(n));
      await filledOrder(a, 7, 'solana', SOL, 9n);
      for (const n of [...usdc, 7]) expect(await a.filled(hash(n))).toBe(true);
      expect(await b.filled(hash(1))).toBe(false); // once
      expect(await a.claimChains()).toEqual(['solana']);

      const formed = await Promise.all([a, b, a, b].map((r) => r.formClaimBatches('solana', 50, claimBatchKey, true)));
      const batches = await a.claimBatches();
      // However the replicas split the rows between them: every deposit in exactly one batch, each batch one token.
      expect(formed.reduce((x, y) => x + y, 0)).toBe(batches.length);
      expect(batches.flatMap((x) => x.orders.map((o) => o.quoteHash)).sort()).toEqual([...usdc, 7].map(hash).sort());
      for (const x of batches) expect(new Set(x.orders.map((o) => (o.quoteHash === hash(7) ? 'SOL' : 'USDC'))).size).toBe(1);
      for (const x of batches) expect(x.id).toBe(claimBatchKey(x.orders.map((o) => o.quoteHash)));
      // Batched rows are never batched again.
      expect(await b.formClaimBatches('solana', 50, claimBatchKey, true)).toBe(0);

      // Claimed: the report counts the deposits as claimed and nothing as open.
      for (const x of batches) expect(await b.claimOutcome(x.id, 'claimed')).toBe(x.orders.length);
      expect(await a.claimOutcome(batches[0]!.id, 'claimed')).toBe(0);
      const rec = await a.reconciliation(new Date(0));
      expect(rec.map((r) => [r.chain, r.token, r.deposited, r.claimed, r.open]).sort()).toEqual(
        [
          ['solana', USDC, '21000000', '21000000', '0'],
          ['solana', SOL, '9', '9', '0'],
        ].sort(),
      );
    });

    it('a failed batch is claimed again one order at a time; an EVM chain batches its tokens together', async () => {
      const repo = replica();
      await filledOrder(repo, 1, 'solana', USDC, 5n);
      await filledOrder(repo, 2, 'solana', USDC, 6n);
      await filledOrder(repo, 3, 'base', USDC, 7n);
      await filledOrder(repo, 4, 'base', SOL, 8n);
      for (const n of [1, 2, 3, 4]) await repo.filled(hash(n));
      expect(await repo.formClaimBatches('base', 50, claimBatchKey)).toBe(1);
      expect(await repo.formClaimBatches('solana', 50, claimBatchKey, true)).toBe(1);
      const solana = (await repo.claimBatches()).find((x) => x.chain === 'solana')!;
      expect(await repo.claimOutcome(solana.id, 'failed', 'claim: TX_REVERTED')).toBe(2);
      expect(await repo.formClaimBatches('solana', 50, claimBatchKey, true)).toBe(2);
      const solo = (await repo.claimBatches()).filter((x) => x.chain === 'solana');
      expect(solo.map((x) => x.id).sort()).toEqual([claimBatchKey([hash(1)]), claimBatchKey([hash(2)])].sort());
    });

    it('the migration makes fills from Solana settled before claims existed due, and nothing else', async () => {
      const repo = replica();
      await pool.query(
        `INSERT INTO chains (name, chain_id, vm, native_symbol, native_decimals, enabled, gasless, max_gas_drop, deposit_target)
         VALUES ('solana', 792703809, 'svm', 'SOL', 9, true, false, 0, 'v'), ('base', 8453, 'evm', 'ETH', 18, true, false, 0, 'r')
         ON CONFLICT DO NOTHING`,
      );
      await filledOrder(repo, 1, 'solana', USDC, 5n);
      await filledOrder(repo, 2, 'base', USDC, 6n);
      await filledOrder(repo, 3, 'solana', USDC, 7n); // still open
      await pool.query("UPDATE settlements SET state = 'done', step = NULL, reserved = 0 WHERE quote_hash IN ($1, $2)", [hash(1), hash(2)]);
      const sql = readFileSync(join(ROOT, 'prisma/quote-engine/migrations/20261211100000_solana_claims/migration.sql'), 'utf8');
      await pool.query(sql);
      await pool.query(sql); // idempotent
      const { rows } = await pool.query('SELECT quote_hash, claim FROM settlements ORDER BY quote_hash');
      expect(rows).toEqual([
        { quote_hash: hash(1), claim: 'due' },
        { quote_hash: hash(2), claim: null },
        { quote_hash: hash(3), claim: null },
      ]);
    });
  });
});
