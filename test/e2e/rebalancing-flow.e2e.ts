import { untilHolds } from '@xchain/stack';
import type { Hex } from 'viem';
import type { E2eStack } from '../support/e2e-stack';
import { type GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { apiErrorView } from '../support/http';
import { RebalancingProbe } from '../support/rebalancing';
import { type SettlementFixture, filler, startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(600_000);

const BASE_USDC = LOCAL_TOKENS.base.USDC;
const USDC = 1_000_000n;
const CHAINS = ['base', 'arbitrum'] as const;
type Chain = (typeof CHAINS)[number];

/** 20 gasless orders of 30 USDC, base → arbitrum: 600 USDC paid out on arbitrum, which starts with 200. */
const ORDERS = 20;
const ORDER_IN = 30n * USDC;
const START = { base: 400n * USDC, arbitrum: 200n * USDC };

/**
 * Issue 47 §5: a one-way flow that would drain arbitrum's inventory three times over is sustained
 * by the rebalancer. Every order is a real gasless order through the gateway (quoted, signed,
 * relayed, deposited on base's router, filled on arbitrum from the filler), each deposit is claimed
 * back to the filler on base (D20: the treasury is the filler), and the rebalancer burns on base and
 * mints on arbitrum through the devnet's CCTP stand-ins whenever arbitrum falls below a quarter of
 * the holdings. At the end the books reconcile to the base unit: the source router's deposits are
 * claims + refunds + open, the filler's USDC on both chains is what it was less the fills paid plus
 * the deposits claimed less CCTP's fees, and its ETH on each chain is what it was less the gas of
 * every transaction it sent.
 */
describe('rebalancing keeps a one-way flow filled', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;

  let p: RebalancingProbe;
  const setUsdc = (chain: Chain, amount: bigint) => p.setUsdc(chain, amount);
  const usdc = (chain: Chain) => p.usdc(chain);
  const eth = (chain: Chain) => g.client(chain).getBalance({ address: filler.address });

  /** Gas the filler paid on a chain for every transaction it sent in blocks after `from`, and the value it sent. */
  const spentBy = async (chain: Chain, from: bigint): Promise<{ gas: bigint; value: bigint; txs: number }> => {
    const client = g.client(chain);
    const head = await client.getBlockNumber();
    let gas = 0n;
    let value = 0n;
    let txs = 0;
    for (let n = from + 1n; n <= head; n++) {
      const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() !== filler.address.toLowerCase()) continue;
        const receipt = await client.getTransactionReceipt({ hash: tx.hash });
        gas += receipt.gasUsed * receipt.effectiveGasPrice;
        value += tx.value;
        txs++;
      }
    }
    return { gas, value, txs };
  };

  beforeAll(async () => {
    ({ e2e, g, s } = await startSettlementStack({ REBALANCE_ENABLED: 'true', REBALANCE_POLL_MS: '300' }));
    p = new RebalancingProbe(e2e, g);
  }, 240_000);

  afterAll(async () => {
    await e2e?.stop();
  });

  it('fills every order of a flow that drains arbitrum three times over, refunds none, and the books reconcile to the unit', async () => {
    await setUsdc('base', START.base);
    await setUsdc('arbitrum', START.arbitrum);
    // 600 USDC in all, arbitrum at a third: above its quarter, so nothing is moved before the flow.
    await s.reportUntil(
      (r) => r.rebalancing?.[0]?.chains?.length === 2 && r.rebalancing[0].total === (600n * USDC).toString(),
      'the rebalancer reading 600 USDC',
      30_000,
    );
    const flowStart = Date.now() - 1_000;
    const startBlock = { base: await g.client('base').getBlockNumber(), arbitrum: await g.client('arbitrum').getBlockNumber() };
    const usdcBefore = { base: await usdc('base'), arbitrum: await usdc('arbitrum') };
    const ethBefore = { base: await eth('base'), arbitrum: await eth('arbitrum') };
    expect(usdcBefore).toEqual(START);

    // One order at a time, as one wallet after another would: each quote sees what the last fill left.
    const hashes: string[] = [];
    let refusedAtQuote = 0;
    for (let i = 0; i < ORDERS; i++) {
      const user = g.newUser();
      await g.mint('base', BASE_USDC, user.address, ORDER_IN);
      const q = await untilHolds(
        `order ${i}'s quote`,
        () =>
          g.gaslessQuote('base', BASE_USDC, user.address, ORDER_IN.toString()).catch((err: unknown) => {
            const reason = apiErrorView(err).reason;
            if (reason !== 'INSUFFICIENT_INVENTORY' && reason !== 'UPSTREAM_TIMEOUT') throw err;
            refusedAtQuote++;
            return undefined;
          }),
        (x) => x !== undefined,
        { timeoutMs: 60_000, everyMs: 250 },
      );
      const submitted = await g.submit(await g.evmBody(user, q!, true));
      expect(submitted.status).toBe(200);
      const view = await g.waitOrder(q!['quote_hash'], (v) => v.status === 'fulfilled' || v.status === 'refunded', 90_000);
      expect({ order: i, status: view.status }).toEqual({ order: i, status: 'fulfilled' });
      hashes.push(q!['quote_hash']);
    }

    // Quiet again: every deposit claimed, no fill open, every move received, nothing more planned.
    const report = await s.reportUntil(
      (r) =>
        r.claims.due + r.claims.batched === 0 &&
        r.open.fill === 0 &&
        r.reconciliation.every((x: { open: string }) => x.open === '0') &&
        r.rebalancing[0].moves.every((m: { state: string }) => m.state === 'received' || m.state === 'failed'),
      'every claim landed and every move received',
      120_000,
    );
    // This flow's moves: those planned since it began (the report also lists earlier ones).
    const moves = (
      report.rebalancing[0].moves as {
        src_chain: string;
        dst_chain: string;
        amount: string;
        fee_executed: string;
        planned_at: string;
        state: string;
      }[]
    ).filter((m) => new Date(m.planned_at).getTime() >= flowStart);
    // At 200 USDC arbitrum covers six of the twenty orders: the rest were paid from what the rebalancer brought.
    expect(moves.length).toBeGreaterThanOrEqual(2);
    for (const m of moves) expect([m.src_chain, m.dst_chain, m.state]).toEqual(['base', 'arbitrum', 'received']);
    expect(report.claims.stuck).toBe(0);

    // Deposits = claims + refunds + open on base's router, to the unit; every order filled once, none cancelled or refunded.
    const filled: bigint[] = [];
    const deposited: bigint[] = [];
    for (const h of hashes) {
      const [deposit] = await g.deposits('base', s.routers['base']!, h as Hex);
      deposited.push(deposit!.args.amount!);
      const fills = await s.routerEvents('arbitrum', 'Filled', h);
      expect(fills).toHaveLength(1);
      filled.push((fills[0]!.args as { amount: bigint }).amount);
      expect((await s.routerEvents('base', 'Claimed', h)).length).toBe(1);
      expect((await s.routerEvents('arbitrum', 'Cancelled', h)).length + (await s.routerEvents('base', 'Refunded', h)).length).toBe(0);
    }
    const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
    const base = report.reconciliation.find((x: { chain: string }) => x.chain === 'base');
    expect(base).toMatchObject({ deposited: sum(deposited).toString(), claimed: sum(deposited).toString(), refunded: '0', open: '0' });
    expect(await g.balanceOf('base', BASE_USDC, s.routers['base']!)).toBe(0n);

    // Holdings after = holdings before − fills paid + deposits claimed − CCTP fees, to the unit.
    const fees = sum(moves.map((m) => BigInt(m.fee_executed)));
    const after = { base: await usdc('base'), arbitrum: await usdc('arbitrum') };
    expect(after.base + after.arbitrum).toBe(usdcBefore.base + usdcBefore.arbitrum - sum(filled) + sum(deposited) - fees);
    // Per chain: base lost what it burned and gained the claims; arbitrum lost the fills and gained what was minted.
    const burned = sum(moves.map((m) => BigInt(m.amount)));
    expect(after.base).toBe(usdcBefore.base + sum(deposited) - burned);
    expect(after.arbitrum).toBe(usdcBefore.arbitrum - sum(filled) + burned - fees);

    // Gas: the filler's ETH on each chain fell by exactly the gas of the transactions it sent (fills, claims, approve, burn, mint).
    for (const chain of CHAINS) {
      const spent = await spentBy(chain, startBlock[chain]);
      expect(spent.value).toBe(0n);
      expect(spent.txs).toBeGreaterThan(0);
      expect({ chain, eth: await eth(chain) }).toEqual({ chain, eth: ethBefore[chain] - spent.gas });
    }
    // Reported for the reader of the log: how often a quote had to wait for inventory.
    console.log(`rebalancing flow: ${ORDERS} orders, ${moves.length} moves, ${refusedAtQuote} quotes refused for inventory and retried`);
  });
});
