import { XCHAIN_ROUTER_ABI, approveCalldata, depositTx } from '@xchain/evm-gasless';
import { orderFromWire } from '@xchain/order-codec';
import { until, untilHolds } from '@xchain/stack';
import { type Address, type Hex, createWalletClient, http, maxUint256 } from 'viem';
import type { E2eStack } from '../support/e2e-stack';
import { type GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { crossChainOf, expectApiError } from '../support/http';
import { T } from '../support/registry-fixture';
import { ARB_USDC, PLENTY, type SettlementFixture, filler, startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(180_000);

const { base } = LOCAL_TOKENS;

/**
 * Settlement by the system itself (D15, D16), through the gateway on the real stack: the quote-engine
 * decides each deposited order, the relayer sends the fill, cancel, refund or claim from the operator
 * wallet's lane on the local chains, and the chain watchers report what landed.
 */
describe('settlement: every deposited order ends filled or refunded, by the system', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;

  /** The filler's base USDC before any deposit: claims pay the filler (D20), and no fill of these suites spends base USDC. */
  let baseAtStart = 0n;

  beforeAll(async () => {
    ({ e2e, g, s } = await startSettlementStack());
    baseAtStart = await g.balanceOf('base', base.USDC, filler.address);
  }, 240_000);

  afterAll(async () => {
    await e2e?.stop();
  });

  it('fills a deposited order by itself: the recipient gets exactly amount_out, the order is fulfilled with the fill transaction', async () => {
    await s.setInventory(PLENTY);
    const o = await s.quote(25_000_000n);
    const amountOut = BigInt(o.q.amount_out);
    await s.setInventory(amountOut);
    const before = await g.balanceOf('arbitrum', ARB_USDC, o.user.address);
    await s.deposit(o);

    const view = await g.waitOrder(o.q.quote_hash, (v) => v.status === 'fulfilled', 60_000);
    expect(view.fulfillment).toMatchObject({
      chain: 'arbitrum',
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      amount: amountOut.toString(),
    });
    expect(view).toMatchObject({ terminal: true, settlement: { decision: 'fill' } });
    expect((await g.balanceOf('arbitrum', ARB_USDC, o.user.address)) - before).toBe(amountOut);
    expect(await s.inventory()).toBe(0n);
    const [fill] = await s.routerEvents('arbitrum', 'Filled', o.q.quote_hash);
    expect(fill?.args).toMatchObject({ filler: filler.address, amount: amountOut });
    expect(await s.routerRead('base', 'refunded', o.q.quote_hash)).toBe(false);
  });

  it('100 deposits against inventory for 10: 10 filled, 90 refunded, none filled twice or both; quoting refuses while the inventory is reserved', async () => {
    await s.setInventory(PLENTY);
    // One depositor pays for all; each order refunds to an address of its own, so every refund is counted apart.
    const depositor = g.newUser();
    await g.setNativeBalance('base', depositor.address, 10n ** 19n);
    await g.mint('base', base.USDC, depositor.address, 100n * 10_000_000n);
    await g.send('base', { to: base.USDC, data: approveCalldata(s.routers['base']!, maxUint256) }, depositor);
    const orders = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const who = g.newUser().address;
        const q = crossChainOf(
          await s.retryingInventory(() =>
            g.api.getQuote({
              src_chain: 'base',
              dst_chain: 'arbitrum',
              src_token: base.USDC,
              dst_token: ARB_USDC,
              trade_type: 'TRADE_TYPE_EXACT_INPUT',
              amount: '10000000',
              gas_drop: '',
              recipient: who,
              refund_address: who,
            }),
          ),
        );
        return { who, q, order: orderFromWire(q.order).order };
      }),
    );
    const amountOut = BigInt(orders[0]!.q.amount_out);
    expect(orders.every((o) => BigInt(o.q.amount_out) === amountOut)).toBe(true);
    await s.setInventory(10n * amountOut);

    // Arbitrum holds its blocks: the ten fills stay in flight, their inventory reserved.
    await g.client('arbitrum').request({ method: 'evm_setIntervalMining' as never, params: [0] as never });
    try {
      const wallet = createWalletClient({ account: depositor, transport: http(e2e.devnet!.chains.get('base')!.rpcUrl) });
      let nonce = await g.client('base').getTransactionCount({ address: depositor.address, blockTag: 'pending' });
      const sent: Hex[] = [];
      for (const o of orders)
        sent.push(await wallet.sendTransaction({ ...depositTx(o.order, s.routers['base']!), nonce: nonce++, gas: 300_000n, chain: null }));
      for (const hash of sent) expect((await g.client('base').waitForTransactionReceipt({ hash })).status).toBe('success');
      // All the balance is reserved by fills not yet landed: quoting to arbitrum USDC refuses.
      await s.reportUntil((r) => r.open.fill === 10, 'ten fills open');
      // Retried while quoting's inventory reading catches up.
      await until(
        'quoting to refuse for inventory',
        async () => {
          await expectApiError(s.quoteOnce(10_000_000n), { http: 503, reason: 'INSUFFICIENT_INVENTORY' });
          return true;
        },
        { timeoutMs: 15_000, everyMs: 250 },
      );
    } finally {
      await g.client('arbitrum').request({ method: 'evm_setIntervalMining' as never, params: [1] as never });
    }

    // One at a time: they settle together, and a hundred pollers at once would only load the stack.
    const views: any[] = [];
    for (const o of orders)
      views.push(await g.waitOrder(o.q.quote_hash, (v) => v.status === 'fulfilled' || v.status === 'refunded', 150_000));
    const filled = orders.filter((_, i) => views[i].status === 'fulfilled');
    const refunded = orders.filter((_, i) => views[i].status === 'refunded');
    expect([filled.length, refunded.length]).toEqual([10, 90]);
    expect(await s.inventory()).toBe(0n);
    for (const [i, o] of orders.entries()) {
      const filledOnChain = (await s.routerEvents('arbitrum', 'Filled', o.q.quote_hash)).length;
      const refundedOnChain = (await s.routerEvents('base', 'Refunded', o.q.quote_hash)).length;
      // Exactly one of the two, once, and the view says which and why.
      expect([filledOnChain, refundedOnChain]).toEqual(views[i].status === 'fulfilled' ? [1, 0] : [0, 1]);
      if (views[i].status === 'fulfilled') {
        expect(await g.balanceOf('arbitrum', ARB_USDC, o.who as Address)).toBe(amountOut);
        continue;
      }
      expect(views[i]).toMatchObject({ terminal: true, settlement: { decision: 'refund', reason: 'INSUFFICIENT_INVENTORY' } });
      expect(views[i].refund).toMatchObject({ chain: 'base', amount: '10000000', reason: 'INSUFFICIENT_INVENTORY' });
      expect(views[i].refund.token.toLowerCase()).toBe(base.USDC.toLowerCase());
      expect(await g.balanceOf('base', base.USDC, o.who as Address)).toBe(10_000_000n);
      expect(await s.routerRead('arbitrum', 'cancelled', o.q.quote_hash)).toBe(true);
    }
  });

  it('fills a deposit that lands after expires_at but within retention, at the quoted terms (D16)', async () => {
    await s.setInventory(PLENTY);
    const o = await s.quote(5_000_000n);
    const amountOut = BigInt(o.q.amount_out);
    await s.setInventory(amountOut);
    // Base's clock moves past the quote's expiry: the deposit lands "late".
    const expiresAt = BigInt(Math.floor(new Date(o.q.expires_at).getTime() / 1000));
    await g
      .client('base')
      .request({ method: 'evm_setNextBlockTimestamp' as never, params: [`0x${(expiresAt + 60n).toString(16)}`] as never });
    await s.deposit(o);
    const view = await g.waitOrder(o.q.quote_hash, (v) => v.status === 'fulfilled' || v.status === 'refunded', 60_000);
    expect(view.status).toBe('fulfilled');
    expect(new Date(view.deposit.at).getTime()).toBeGreaterThan(new Date(o.q.expires_at).getTime());
    expect(await g.balanceOf('arbitrum', ARB_USDC, o.user.address)).toBe(amountOut);
  });

  it('repays the treasury (the filler, D20) by itself: deposits = claims + refunds to the base unit, the source router keeps nothing', async () => {
    // Every deposit of this suite so far went to base's router: 25 + 100 × 10 + 5 USDC; 90 × 10 were refunded.
    const deposited = 25_000_000n + 100n * 10_000_000n + 5_000_000n;
    const refunded = 90n * 10_000_000n;
    // One minute for both waits below.
    const deadline = Date.now() + 60_000;
    await untilHolds(
      "base's router to hold nothing",
      () => g.balanceOf('base', base.USDC, s.routers['base']!),
      (held) => held === 0n,
      { timeoutMs: 60_000, everyMs: 250 },
    );
    expect(await g.balanceOf('base', base.USDC, filler.address)).toBe(baseAtStart + deposited - refunded);

    // The operator's report agrees once the claims' confirmations are in: nothing reserved, nothing open or stuck, the twelve fills claimed.
    const report = await untilHolds(
      'the twelve fills claimed in the report',
      () => e2e.admin('settlement'),
      (r) => r.code !== 0 || r.out.claims.claimed >= 12,
      { timeoutMs: Math.max(0, deadline - Date.now()), everyMs: 250 },
    );
    expect(report.code).toBe(0);
    expect(report.out).toMatchObject({ open: { fill: 0, cancel: 0, refund: 0 }, undecided: 0, oldest_unsettled: null, stuck: [] });
    expect(report.out.claims).toEqual({ due: 0, batched: 0, claimed: 12, stuck: 0 });
    // Deposits = claims + refunds + open, to the base unit, and the chain agrees (treasury and refund addresses above).
    expect(report.out.reconciliation).toHaveLength(1);
    expect({ ...report.out.reconciliation[0], token: report.out.reconciliation[0].token.toLowerCase() }).toEqual({
      chain: 'base',
      token: base.USDC.toLowerCase(),
      deposited: deposited.toString(),
      claimed: (deposited - refunded).toString(),
      refunded: refunded.toString(),
      open: '0',
    });
    expect(report.out.inventory).toEqual([
      { chain: 'arbitrum', token: ARB_USDC.toLowerCase(), balance: '0', reserved: '0', open_fills: 0, available: '0' },
    ]);
  });

  it('settles a same-chain order on one router: arbitrum USDC → arbitrum ETH filled from the operator, its deposit claimed to the treasury, the filler', async () => {
    const user = g.newUser();
    const recipient = g.newUser().address;
    await g.mint('arbitrum', ARB_USDC, user.address, 50_000_000n);
    await g.setNativeBalance('arbitrum', user.address, 10n ** 17n);
    const reply = await g.api.getQuote({
      src_chain: 'arbitrum',
      dst_chain: 'arbitrum',
      src_token: ARB_USDC,
      dst_token: T.arbitrum.ETH,
      trade_type: 'TRADE_TYPE_EXACT_INPUT',
      amount: '50000000',
      gas_drop: '',
      recipient,
      refund_address: user.address,
    });
    if (!('same_chain_swap' in reply)) throw new Error(`expected a same-chain quote, got ${JSON.stringify(reply)}`);
    const q = reply.same_chain_swap;
    const treasuryBefore = await g.balanceOf('arbitrum', ARB_USDC, filler.address);
    await g.send('arbitrum', { to: ARB_USDC, data: approveCalldata(s.routers['arbitrum']!, maxUint256) }, user);
    await g.send('arbitrum', depositTx(orderFromWire(q.order).order, s.routers['arbitrum']!), user);
    const view = await g.waitOrder(q.quote_hash, (v) => v.status === 'fulfilled' || v.status === 'refunded', 60_000);
    expect(view.status).toBe('fulfilled');
    expect(await g.client('arbitrum').getBalance({ address: recipient as Address })).toBe(BigInt(q.amount_out));
    // The deposit leaves the router once, to the treasury, after the recorded fill.
    await until(
      'the deposit at the treasury',
      async () => {
        expect(await g.balanceOf('arbitrum', ARB_USDC, filler.address)).toBe(treasuryBefore + 50_000_000n);
        return true;
      },
      { timeoutMs: 30_000, everyMs: 250 },
    );
    expect(await s.routerRead('arbitrum', 'claimed', q.quote_hash)).toBe(true);
  });

  it('a deposit after retention is refused by the router (RetentionOver): nothing to fill or refund', async () => {
    await s.setInventory(PLENTY);
    const o = await s.quote(5_000_000n);
    // Eight days on: past the routers' seven-day retention (last: it moves base's clock for good).
    await g.client('base').request({ method: 'evm_increaseTime' as never, params: [8 * 86_400] as never });
    await g.client('base').request({ method: 'evm_mine' as never, params: [] as never });
    const late = g.client('base').simulateContract({
      address: s.routers['base']!,
      abi: XCHAIN_ROUTER_ABI,
      functionName: 'deposit',
      args: [o.order],
      account: o.user.address,
    });
    await expect(late).rejects.toThrow(/RetentionOver/);
    expect(await g.balanceOf('base', base.USDC, o.user.address)).toBe(5_000_000n);
  });
});
