import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { LedgerBalanceRpc, LedgerHoldRpc, LedgerReleaseRpc, LedgerSettleRpc, RpcError } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import { Client } from 'pg';
import { type E2eStack, startE2eStack } from '../support/e2e-stack';

// Jest's default 5 s per test is a wall-clock bound a shared machine cannot promise for a run of real RPCs.
jest.setTimeout(60_000);

const INTERNAL = { caller: { kind: 'internal', service: 'gasless-relayer' } } as const;
const quoteHash = () => `0x${randomBytes(32).toString('hex')}`;
const reasonOf = (err: unknown) =>
  err instanceof RpcError ? { code: err.status.code, reason: (err.status.details[0] as { reason?: string }).reason } : err;

/** The ledger operations the relayer uses, over NATS against the running partner-service. */
describe('sponsorship ledger: hold, settle, release', () => {
  let e2e: E2eStack;
  let nc: NatsConnection;
  let rpc: RpcClient;
  let qe: NatsConnection;
  let partnerId: string;
  // Balances are the quote-engine's to read (D14: the relayer's NATS user may not).
  const balance = async () =>
    (await new RpcClient(qe, 20_000).call(LedgerBalanceRpc, { partner_id: partnerId }, INTERNAL)).balance_usd_micros;

  beforeAll(async () => {
    e2e = await startE2eStack();
    // Holds, settles and releases as the relayer, the only NATS user allowed to send them (D14).
    nc = await e2e.connectAs('gasless-relayer');
    qe = await e2e.connectAs('quote-engine');
    rpc = new RpcClient(nc, 20_000);
    const created = await e2e.admin('create-partner', '--email', 'sponsor@example.com');
    partnerId = created.out.partner_id;
    // 10 relays of 0.25 USD each
    expect((await e2e.admin('credit', '--email', 'sponsor@example.com', '--usd-micros', '2500000', '--reason', 'prepaid')).code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await nc?.close();
    await qe?.close();
    await e2e?.stop();
  });

  it('lets exactly 10 of 100 concurrent holds through when the balance covers 10, and never goes below zero', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, () =>
        rpc.call(LedgerHoldRpc, { partner_id: partnerId, quote_hash: quoteHash(), amount_usd_micros: '250000' }, INTERNAL),
      ),
    );
    const held = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [reasonOf(o.reason)] : []));
    expect(held).toHaveLength(10);
    expect(refused).toHaveLength(90);
    expect(new Set(refused.map((r) => JSON.stringify(r)))).toEqual(new Set([JSON.stringify({ code: 9, reason: 'INSUFFICIENT_FUNDING' })]));
    expect(await balance()).toBe('0');
    // Release them all so the next test starts from the full balance.
    for (const h of held)
      await rpc.call(LedgerReleaseRpc, { quote_hash: (h as PromiseFulfilledResult<{ quote_hash: string }>).value.quote_hash }, INTERNAL);
  }, 60_000);

  it('is idempotent per quote: a repeated hold, settle or release changes nothing', async () => {
    const q = quoteHash();
    const holds = await Promise.all(
      Array.from({ length: 20 }, () =>
        rpc.call(LedgerHoldRpc, { partner_id: partnerId, quote_hash: q, amount_usd_micros: '300000' }, INTERNAL),
      ),
    );
    expect(new Set(holds.map((h) => h.held_usd_micros))).toEqual(new Set(['300000']));
    expect(await balance()).toBe('2200000');
    // Settling charges the actual cost (capped at the hold) and returns the rest.
    const settled = await rpc.call(LedgerSettleRpc, { quote_hash: q, actual_usd_micros: '120000' }, INTERNAL);
    expect(settled).toMatchObject({
      status: 'settled',
      held_usd_micros: '300000',
      charged_usd_micros: '120000',
      balance_usd_micros: '2380000',
    });
    const again = await rpc.call(LedgerSettleRpc, { quote_hash: q, actual_usd_micros: '999999' }, INTERNAL);
    expect(again).toMatchObject({ status: 'settled', charged_usd_micros: '120000', balance_usd_micros: '2380000' });
    await expect(rpc.call(LedgerReleaseRpc, { quote_hash: q }, INTERNAL).catch(reasonOf)).resolves.toEqual({
      code: 9,
      reason: 'HOLD_SETTLED',
    });
    await expect(rpc.call(LedgerSettleRpc, { quote_hash: quoteHash(), actual_usd_micros: '1' }, INTERNAL).catch(reasonOf)).resolves.toEqual(
      { code: 5, reason: 'HOLD_NOT_FOUND' },
    );

    const over = quoteHash();
    await rpc.call(LedgerHoldRpc, { partner_id: partnerId, quote_hash: over, amount_usd_micros: '100000' }, INTERNAL);
    const capped = await rpc.call(LedgerSettleRpc, { quote_hash: over, actual_usd_micros: '500000' }, INTERNAL);
    expect(capped).toMatchObject({ charged_usd_micros: '100000', balance_usd_micros: '2280000' });

    const released = quoteHash();
    await rpc.call(LedgerHoldRpc, { partner_id: partnerId, quote_hash: released, amount_usd_micros: '50000' }, INTERNAL);
    const r1 = await rpc.call(LedgerReleaseRpc, { quote_hash: released }, INTERNAL);
    const r2 = await rpc.call(LedgerReleaseRpc, { quote_hash: released }, INTERNAL);
    expect([r1.status, r2.status, r2.balance_usd_micros]).toEqual(['released', 'released', '2280000']);
    await expect(rpc.call(LedgerSettleRpc, { quote_hash: released, actual_usd_micros: '1' }, INTERNAL).catch(reasonOf)).resolves.toEqual({
      code: 9,
      reason: 'HOLD_RELEASED',
    });
  });

  it("refuses every NATS user but the relayer's (the bus, not a header), and unknown partners", async () => {
    const hold = { partner_id: partnerId, quote_hash: quoteHash(), amount_usd_micros: '1' };
    for (const user of ['gateway', 'quote-engine', 'price-oracle', 'partner-service', 'operator']) {
      const other = await e2e.connectAs(user);
      try {
        // Even claiming to be the relayer in x-caller: the bus refuses the publish.
        await expect(new RpcClient(other, 5000).call(LedgerHoldRpc, hold, INTERNAL).catch(reasonOf)).resolves.toEqual({
          code: 7,
          reason: 'BUS_PERMISSION_DENIED',
        });
      } finally {
        await other.close();
      }
    }
    await expect(rpc.call(LedgerHoldRpc, { ...hold, partner_id: 'ptn_nobody' }, INTERNAL).catch(reasonOf)).resolves.toEqual({
      code: 5,
      reason: 'PARTNER_NOT_FOUND',
    });
  });

  it('keeps the ledger append-only and its balance non-negative in the database itself', async () => {
    const db = new Client({ connectionString: e2e.databaseUrl('partner_service') });
    await db.connect();
    try {
      await expect(db.query('UPDATE ledger_entries SET delta_usd_micros = 0')).rejects.toThrow(/append-only/);
      await expect(db.query('DELETE FROM ledger_entries')).rejects.toThrow(/append-only/);
      await expect(
        db.query(
          `INSERT INTO ledger_entries (partner_id, kind, delta_usd_micros, amount_usd_micros, reason) VALUES ($1, 'debit', -999999999, 999999999, 'x')`,
          [partnerId],
        ),
      ).rejects.toThrow(/negative/);
      const { rows } = await db.query('SELECT SUM(delta_usd_micros)::text AS b FROM ledger_entries WHERE partner_id = $1', [partnerId]);
      expect(rows[0].b).toBe(await balance());
    } finally {
      await db.end();
    }
  });
});
