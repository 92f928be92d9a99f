import { randomBytes } from 'node:crypto';
import type { OrderEvent } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import { toBytes32 } from '@xchain/order-codec';
import { type PrismaClient, createPartnerServiceDb } from '@xchain/partner-service-db';
import { freshMigratedDatabase } from '@xchain/stack';
import type { Logger } from '@xchain/telemetry';
import { RegistryClient } from '../registry-client';
import { mockOf } from '@xchain/service-kit/testing';
import { chainRef, tokenRef } from '../test-support.testing';
import { FulfilledOrdersConsumer } from './fulfilled-orders.consumer';
import { ReferralsRepository } from './referrals.repository';
import { ReferralsService } from './referrals.service';

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const REFERRER_A = '0x3333333333333333333333333333333333333333';
const REFERRER_B = '0x4444444444444444444444444444444444444444';

/** Accruals and their reversal on PostgreSQL; the stored quote and the registry are stand-ins. */
describe('referral accruals withdrawn by a reorg', () => {
  let db: PrismaClient;
  let referrals: ReferralsService;
  let consumer: FulfilledOrdersConsumer;
  const logs: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const log = {
    info: (fields: Record<string, unknown>, msg: string) => logs.push({ level: 'info', fields, msg }),
    warn: (fields: Record<string, unknown>, msg: string) => logs.push({ level: 'warn', fields, msg }),
  } as unknown as Logger;
  const partnerId = 'ptn_reorg';
  const quotes = new Map<string, unknown>();

  /** A quote made with the partner's key, 1000 USDC in, referrers A (10 bps) and B (5 bps). */
  const quote = () => {
    const hash = `0x${randomBytes(32).toString('hex')}`;
    const order = {
      src_chain_id: '1',
      src_token: toBytes32('evm', USDC),
      amount_in: '1000000000',
      referrers: [
        { account: toBytes32('evm', REFERRER_A), bps: '10' },
        { account: toBytes32('evm', REFERRER_B), bps: '5' },
      ],
    };
    quotes.set(hash, { quote_hash: hash, partner_id: partnerId, quote: { cross_chain: { order } } });
    return hash;
  };
  const fill = (quoteHash: string, over: Partial<OrderEvent> = {}): OrderEvent => ({
    type: 'fulfilled',
    quote_hash: quoteHash,
    chain: 'arbitrum',
    tx_hash: `0x${quoteHash.slice(2, 66)}`,
    log_index: 2,
    block_hash: `0x${'aa'.repeat(32)}`,
    occurred_at: '2026-11-23T12:00:00Z',
    ...over,
  });
  const accrued = (quoteHash: string) => db.referralAccrual.findMany({ where: { quoteHash }, orderBy: { referrer: 'asc' } });

  beforeAll(async () => {
    db = createPartnerServiceDb(await freshMigratedDatabase('partner-service', 'ps_withdrawals'), 4);
    await db.partner.create({ data: { id: partnerId, email: 'reorg@example.com' } });
    const rpc = mockOf(RpcClient);
    rpc.call.mockImplementation((async (_c: unknown, req: { quote_hash: string }) => quotes.get(req.quote_hash)) as never);
    const registry = mockOf(RegistryClient);
    registry.chainById.mockResolvedValue(chainRef('ethereum', '1', 'evm'));
    registry.token.mockResolvedValue(tokenRef('ethereum', USDC, 'USDC', 6));
    referrals = new ReferralsService(new ReferralsRepository(db), rpc, registry);
    consumer = new FulfilledOrdersConsumer({} as never, referrals, log);
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
  });

  it('reverses the accruals of a withdrawn fulfilment, and a late redelivery of it accrues nothing', async () => {
    const q = quote();
    await expect(referrals.accrue(fill(q))).resolves.toBe('accrued');
    expect((await accrued(q)).map((a) => [a.referrer, a.amount.toFixed(0)])).toEqual([
      [REFERRER_A, '1000000'],
      [REFERRER_B, '500000'],
    ]);
    await consumer.accrue(fill(q, { removed: true }));
    expect(await accrued(q)).toEqual([]);
    expect(logs.at(-1)).toMatchObject({
      level: 'info',
      msg: 'withdrawn fulfilment: accruals reversed',
      fields: { quote_hash: q, reversed: 2, kept: 0 },
    });
    expect((await referrals.groups(partnerId, undefined, undefined)).groups).toEqual([]);
    // the dropped fulfilment redelivered late (it had failed and was retried): still nothing
    await expect(referrals.accrue(fill(q))).resolves.toBe('withdrawn');
    expect(await accrued(q)).toEqual([]);
    // the same withdrawal again: nothing more
    await expect(referrals.withdraw(fill(q, { removed: true }))).resolves.toMatchObject({ repeated: true, reversed: 0 });
    // the fill re-included in another block accrues again
    await expect(referrals.accrue(fill(q, { block_hash: `0x${'bb'.repeat(32)}` }))).resolves.toBe('accrued');
    expect(await accrued(q)).toHaveLength(2);
  });

  it('leaves vouchered accruals alone and says so', async () => {
    const q = quote();
    await referrals.accrue(fill(q));
    const voucher = await db.voucher.create({
      data: {
        id: `0x${randomBytes(32).toString('hex')}`,
        partnerId,
        chain: 'ethereum',
        chainId: '1',
        routerAddress: REFERRER_A,
        token: USDC,
        tokenSymbol: 'USDC',
        decimals: 6,
        referrer: REFERRER_A,
        amount: '1000000',
        signature: '0x',
        calldata: '0x',
      },
    });
    await db.referralAccrual.updateMany({ where: { quoteHash: q }, data: { voucherId: voucher.id } });
    await consumer.accrue(fill(q, { removed: true }));
    expect(await accrued(q)).toHaveLength(2);
    expect(logs.at(-1)).toMatchObject({ level: 'warn', fields: { quote_hash: q, reversed: 0, kept: 2 } });
    expect(await db.referralWithdrawal.findFirst({ where: { quoteHash: q } })).toMatchObject({ reversed: 0, kept: 2 });
  });

  it('keeps the accruals when the fill was re-included before the old one was withdrawn', async () => {
    const q = quote();
    await referrals.accrue(fill(q));
    const reincluded = fill(q, { block_hash: `0x${'cc'.repeat(32)}` });
    await expect(referrals.accrue(reincluded)).resolves.toBe('already_accrued');
    await expect(referrals.withdraw(fill(q, { removed: true }))).resolves.toEqual({ reversed: 0, kept: 0, other: 2, repeated: false });
    expect((await accrued(q)).map((a) => a.fulfilBlockHash)).toEqual([`0x${'cc'.repeat(32)}`, `0x${'cc'.repeat(32)}`]);
  });

  it('reverses accruals made before fulfilments were recorded on them', async () => {
    const q = quote();
    await referrals.accrue(fill(q));
    await db.referralAccrual.updateMany({
      where: { quoteHash: q },
      data: { fulfilChain: null, fulfilTxHash: null, fulfilLogIndex: null, fulfilBlockHash: null },
    });
    await expect(referrals.withdraw(fill(q, { removed: true }))).resolves.toMatchObject({ reversed: 2 });
  });

  it('races a voucher issue and a withdrawal: each accrual ends either vouchered or reversed, never both', async () => {
    const q = quote();
    await referrals.accrue(fill(q));
    const ids = (await accrued(q)).map((a) => a.id);
    const voucher = await db.voucher.create({
      data: {
        id: `0x${randomBytes(32).toString('hex')}`,
        partnerId,
        chain: 'ethereum',
        chainId: '1',
        routerAddress: REFERRER_A,
        token: USDC,
        tokenSymbol: 'USDC',
        decimals: 6,
        referrer: REFERRER_A,
        amount: '1',
        signature: '0x',
        calldata: '0x',
      },
    });
    // the issuer's way: lock the open accruals, then mark them
    const issue = db.$transaction(async (tx) => {
      const open = await tx.$queryRaw<
        { id: bigint }[]
      >`SELECT id FROM referral_accruals WHERE quote_hash = ${q} AND voucher_id IS NULL FOR UPDATE`;
      await new Promise((r) => setTimeout(r, 200)); // hold the locks while the withdrawal arrives
      await tx.referralAccrual.updateMany({ where: { id: { in: open.map((o) => o.id) } }, data: { voucherId: voucher.id } });
      return open.length;
    });
    const withdraw = new Promise((r) => setTimeout(r, 50)).then(() => referrals.withdraw(fill(q, { removed: true })));
    const [vouchered, outcome] = await Promise.all([issue, withdraw]);
    const left = await db.referralAccrual.findMany({ where: { id: { in: ids } } });
    expect(vouchered + outcome.reversed).toBe(2);
    expect(left.every((a) => a.voucherId === voucher.id)).toBe(true);
    expect(left).toHaveLength(vouchered);
  });
});
