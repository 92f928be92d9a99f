import type { XchainClient } from '@xchain/client';
import { approveCalldata, depositTx } from '@xchain/evm-gasless';
import { orderFromWire } from '@xchain/order-codec';
import { untilHolds } from '@xchain/stack';
import { type Address, type PrivateKeyAccount, maxUint256 } from 'viem';
import type { E2eStack } from '../support/e2e-stack';
import { type GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { crossChainOf } from '../support/http';
import { PartnerSession, partnerAdmin } from '../support/partner-session';
import { ARB_USDC, PLENTY, type SettlementFixture, startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(240_000);

const BASE_USDC = LOCAL_TOKENS.base.USDC;
const REFERRER = '0x5555555555555555555555555555555555555555';
const GAS_DROP = 10n ** 15n;

type Quote = ReturnType<typeof crossChainOf>;
interface Placed {
  name: string;
  user: PrivateKeyAccount;
  /** Receives on arbitrum (a fresh address: its balances start at zero). */
  recipient: Address;
  q: Quote;
}

/**
 * Fees that match what the user loses (issue 39 §6): after a mixed run on the local chains (a
 * deposit with a gas drop and a referrer, gasless paid by the user, gasless sponsored by the
 * partner, exact output, a gasless order refunded), for every order, to the unit:
 * `amount_in` − what the recipient received − what came back = the fees the quote stated as
 * charged, on a route with no swap (base USDC → arbitrum USDC, equal units). The order view
 * states the same, and so do the partner's records (referral earnings, the sponsorship hold).
 */
describe('fees reconcile per order: quote, chain, order view and partner records agree', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;
  let partner: PartnerSession;
  let api: XchainClient;
  let routers: Record<string, Address>;
  const placed: Placed[] = [];

  beforeAll(async () => {
    ({ e2e, g, s } = await startSettlementStack());
    routers = s.routers;
    partner = await PartnerSession.create(e2e, 'fees@example.com', { key: 'fees' });
    await partnerAdmin(e2e)('credit', '--email', 'fees@example.com', '--usd-micros', '5000000', '--reason', 'prepaid');
    api = partner.keyed;
    await s.setInventory(PLENTY);
  }, 300_000);

  afterAll(async () => {
    await e2e?.stop();
  });

  const body = (user: Address, recipient: Address, over: Record<string, unknown>) => ({
    src_chain: 'base',
    dst_chain: 'arbitrum',
    src_token: BASE_USDC,
    dst_token: ARB_USDC,
    trade_type: 'TRADE_TYPE_EXACT_INPUT' as const,
    amount: '40000000',
    gas_drop: '',
    recipient,
    refund_address: user,
    ...over,
  });

  /** Quotes with the partner's key for a new user who then holds exactly `amount_in` of base USDC. */
  async function quote(name: string, over: Record<string, unknown>): Promise<Placed> {
    const user = g.newUser();
    const recipient = g.newUser().address;
    const q = crossChainOf(await s.retryingInventory(() => api.getQuote(body(user.address, recipient, over) as never)));
    await g.mint('base', BASE_USDC, user.address, BigInt(q.amount_in));
    return { name, user, recipient, q };
  }

  async function deposit(p: Placed): Promise<void> {
    await g.setNativeBalance('base', p.user.address, 10n ** 17n);
    await g.send('base', { to: BASE_USDC, data: approveCalldata(routers['base']!, maxUint256) }, p.user);
    const receipt = await g.send('base', depositTx(orderFromWire(p.q.order).order, routers['base']!), p.user);
    if (receipt.status !== 'success') throw new Error(`${p.name}: the deposit reverted`);
  }

  async function submitGasless(p: Placed): Promise<void> {
    const r = await g.submit(await g.evmBody(p.user, p.q as Record<string, any>, true), { 'x-api-key': partner.key });
    if (r.status !== 200) throw new Error(`${p.name}: submit refused ${JSON.stringify(r.body)}`);
  }

  /** The fees a quote states the user bears for an outcome: every `charged` on a fill, only the relay gas on a refund. */
  const statedCharged = (q: Quote, filled: boolean) =>
    q.fee_breakdown.components
      .filter((c) => filled || c.name === 'sponsor_gas')
      .reduce((sum, c) => {
        expect(c.charged).toMatch(/^\d+$/);
        return sum + BigInt(c.charged!);
      }, 0n);
  const chargedOf = (q: Quote, name: string) =>
    q.fee_breakdown.components.filter((c) => c.name === name).reduce((a, c) => a + BigInt(c.charged!), 0n);

  it('a mixed run: every filled and refunded order loses exactly its stated fees, and the view and partner records say so', async () => {
    // Filled: a deposit with a gas drop and a referrer; gasless paid by the user (with a referrer); gasless sponsored; exact output.
    const withDrop = await quote('deposit + gas drop + referrer', {
      gas_drop: GAS_DROP.toString(),
      referrers: [{ address: REFERRER, bps: 10 }],
    });
    const gasless = await quote('gasless', { gasless: true, amount: '30000000', referrers: [{ address: REFERRER, bps: 25 }] });
    const sponsored = await quote('gasless sponsored', { gasless: true, sponsor_fees: true, amount: '20000000' });
    const exactOut = await quote('exact output', { trade_type: 'TRADE_TYPE_EXACT_OUTPUT', amount: '15000000' });
    expect(BigInt(exactOut.q.min_amount_out)).toBe(15_000_000n);
    expect(chargedOf(gasless.q, 'sponsor_gas')).toBeGreaterThan(0n);
    expect(chargedOf(sponsored.q, 'sponsor_gas')).toBe(0n);
    expect(chargedOf(withDrop.q, 'gas_drop')).toBeGreaterThan(0n);

    await deposit(withDrop);
    await submitGasless(gasless);
    await submitGasless(sponsored);
    await deposit(exactOut);
    const fills = [withDrop, gasless, sponsored, exactOut];
    placed.push(...fills);
    for (const p of fills) await g.waitOrder(p.q.quote_hash, (v) => v.status === 'fulfilled', 90_000);

    // Refunded: a gasless order (relay gas paid by the user) deposited while the inventory cannot cover it.
    const refunded = await quote('gasless refunded', { gasless: true, amount: '12000000' });
    await s.setInventory(0n);
    await submitGasless(refunded);
    placed.push(refunded);
    const refundView = await g.waitOrder(refunded.q.quote_hash, (v) => v.status === 'refunded', 90_000);
    expect(refundView.refund.reason).toBe('INSUFFICIENT_INVENTORY');
    await s.setInventory(PLENTY);

    for (const p of placed) {
      const filled = p !== refunded;
      const received = await g.balanceOf('arbitrum', ARB_USDC, p.recipient);
      // Each user held exactly amount_in and spent it all on the order: what it holds now came back.
      const back = await g.balanceOf('base', BASE_USDC, p.user.address);
      const amountIn = BigInt(p.q.amount_in);
      const lost = amountIn - received - back;
      expect({ order: p.name, lost }).toEqual({ order: p.name, lost: statedCharged(p.q, filled) });
      if (filled) expect({ order: p.name, received }).toEqual({ order: p.name, received: BigInt(p.q.amount_out) });
      else expect(received).toBe(0n);

      const view = (await g.order(p.q.quote_hash)).body;
      expect(view.fee_breakdown).toEqual(p.q.fee_breakdown);
      expect({ order: p.name, accounting: view.accounting }).toEqual({
        order: p.name,
        accounting: expect.objectContaining({
          amount_in: p.q.amount_in,
          received: received.toString(),
          refunded: back.toString(),
          reconciled: true,
        }),
      });
      expect(BigInt(view.accounting.src_fees) + BigInt(view.accounting.dst_fees)).toBe(lost);
    }
    // The gas drop arrived as native on top of the tokens, as its fee paid for.
    expect(await g.client('arbitrum').getBalance({ address: withDrop.recipient })).toBe(GAS_DROP);

    // The partner's records: the referrer earned exactly the referrer fees of the filled orders that named it…
    const referred = chargedOf(withDrop.q, 'referrer_fee') + chargedOf(gasless.q, 'referrer_fee');
    const groups = await untilHolds(
      'the referral earnings of both filled orders',
      async () => (await partner.session.getPartnerReferrals({ page_size: 200 })).groups,
      (gs) => gs.some((x) => x.referrer.toLowerCase() === REFERRER.toLowerCase() && x.count === '2'),
      { timeoutMs: 60_000, everyMs: 500 },
    );
    const group = groups.find((x) => x.referrer.toLowerCase() === REFERRER.toLowerCase());
    expect(group).toMatchObject({
      chain: 'base',
      amount: referred.toString(),
      count: '2',
    });
    // …and the sponsorship ledger held the sponsored order's stated relay gas, and charged no more than it.
    const entries = (await partner.session.listPartnerFundingEntries({ page_size: 200 })).entries.filter(
      (e) => e.quote_hash === sponsored.q.quote_hash,
    );
    const stated = sponsored.q.fee_breakdown.components.find((c) => c.name === 'sponsor_gas')!;
    expect(entries.find((e) => e.kind === 'hold')?.amount_usd_micros).toBe(stated.usd_micros);
    const settle = entries.find((e) => e.kind === 'settle');
    if (settle) expect(BigInt(settle.amount_usd_micros)).toBeLessThanOrEqual(BigInt(stated.usd_micros));
    // No other order of the run touched the partner's balance.
    const others = new Set(placed.filter((p) => p !== sponsored).map((p) => p.q.quote_hash));
    expect(
      (await partner.session.listPartnerFundingEntries({ page_size: 200 })).entries.filter((e) => others.has(e.quote_hash ?? '')),
    ).toEqual([]);
  });
});
