import type { Address } from 'viem';
import { type DepositableQuote, depositQuote } from '../support/deposits';
import { type E2eStack, startE2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { crossChainOf, expectApiError, gatewayClient } from '../support/http';
import { PartnerSession } from '../support/partner-session';
import { EVM_REFUND, EVM_USER, T, USDC_ETH_TO_ARB } from '../support/registry-fixture';

jest.setTimeout(120_000);

/**
 * GET /v1/partner/orders: the orders quoted with a partner's own keys, newest first, paged and
 * filtered by chain. An order is a quote deposited (here on anvil) or submitted gasless; a quote
 * nobody used is in no list (issue 45).
 */
describe('a partner lists its orders through the gateway', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let router: Address;
  /** A partner with a session and one API key. */
  const partner = (email: string) => PartnerSession.create(e2e, email, { key: 'orders' });
  const ethToArb = { ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND };
  const baseToArb = { ...ethToArb, src_chain: 'base', src_token: T.base.USDC, amount: '2000000' };
  const baseToEth = { ...baseToArb, dst_chain: 'ethereum', dst_token: T.ethereum.USDC, amount: '50000000' };
  const deposit = (q: DepositableQuote) => depositQuote(g, 'base', router, LOCAL_TOKENS.base.USDC, q);

  beforeAll(async () => {
    e2e = await startE2eStack(
      { PRICE_POLL_MS: '600000', PRICE_MAX_AGE_SECS: '7200', CHAIN_WATCH_POLL_MS: '300' },
      { devnet: { chains: ['base', 'arbitrum'] } },
    );
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    router = (await g.api.getChains()).chains.find((c) => c.chain === 'base')!.deposit_target as Address;
  }, 180_000);
  afterAll(async () => {
    await e2e?.stop();
  });

  it('lists only its own orders, newest first, each as its order view, in pages and by chain', async () => {
    const alice = await partner('orders-alice@example.com');
    const bob = await partner('orders-bob@example.com');
    const mine: string[] = [];
    for (const body of [baseToArb, baseToEth, baseToArb]) {
      const q = crossChainOf(await alice.keyed.getQuote(body));
      await deposit(q);
      mine.push(q.quote_hash);
    }
    // A quote of Alice's nobody deposited is no order of hers.
    const unused = crossChainOf(await alice.keyed.getQuote(baseToArb)).quote_hash;
    // Neither another partner's order nor a keyless one is Alice's.
    await deposit(crossChainOf(await bob.keyed.getQuote(baseToArb)));
    await deposit(crossChainOf(await gatewayClient(e2e.gatewayUrl).getQuote(baseToArb)));
    const newestFirst = [...mine].reverse();

    const all = await alice.session.listPartnerOrders({});
    expect(all.orders.map((o) => o.quote_hash)).toEqual(newestFirst);
    expect(all.next_cursor).toBe('');
    const view = await gatewayClient(e2e.gatewayUrl).getOrder({ quote_hash: mine[1]! });
    expect(all.orders[1]).toEqual(view);
    expect(all.orders[1]).toMatchObject({ status: 'deposited', src_chain: 'base', dst_chain: 'ethereum', amount_in: '50000000' });
    expect(all.orders.map((o) => o.quote_hash)).not.toContain(unused);
    expect(await gatewayClient(e2e.gatewayUrl).getOrder({ quote_hash: unused })).toMatchObject({ status: 'quoted' });

    const first = await alice.session.listPartnerOrders({ page_size: 2 });
    expect(first.orders.map((o) => o.quote_hash)).toEqual(newestFirst.slice(0, 2));
    expect(first.next_cursor).not.toBe('');
    const second = await alice.session.listPartnerOrders({ page_size: 2, cursor: first.next_cursor });
    expect(second.orders.map((o) => o.quote_hash)).toEqual(newestFirst.slice(2));
    expect(second.next_cursor).toBe('');

    expect((await alice.session.listPartnerOrders({ chain: 'ethereum' })).orders.map((o) => o.quote_hash)).toEqual([mine[1]]);
    expect((await alice.session.listPartnerOrders({ chain: 'arbitrum' })).orders.map((o) => o.quote_hash)).toEqual([mine[2], mine[0]]);
    expect((await alice.session.listPartnerOrders({ chain: 'base' })).orders).toHaveLength(3);
    expect((await bob.session.listPartnerOrders({})).orders).toHaveLength(1);
  });

  it('needs a partner session, and refuses a cursor it did not make', async () => {
    const carol = await partner('orders-carol@example.com');
    await expectApiError(gatewayClient(e2e.gatewayUrl).listPartnerOrders({}), { http: 401 });
    await expectApiError(carol.keyed.listPartnerOrders({}), { http: 401 });
    await expectApiError(carol.session.listPartnerOrders({ cursor: 'bm90LWEtY3Vyc29y' }), { http: 400, reason: 'INVALID_CURSOR' });
    await expectApiError(carol.session.listPartnerOrders({ chain: 'nowhere!' }), { http: 400 });
  });
});
