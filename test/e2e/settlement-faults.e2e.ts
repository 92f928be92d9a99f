import { approveCalldata, depositTx } from '@xchain/evm-gasless';
import { type Hex, createWalletClient, http, maxUint256 } from 'viem';
import type { E2eStack } from '../support/e2e-stack';
import { type GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { PLENTY, type SettlementFixture, startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(180_000);

/** Settlement when a chain misbehaves: a destination RPC that stops answering, a reorg that withdraws a deposit. */
describe('settlement under chain faults', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;

  const rpc = (chain: string, method: string, params: unknown[] = []) =>
    g.client(chain).request({ method: method as never, params: params as never });

  beforeAll(async () => {
    ({ e2e, g, s } = await startSettlementStack());
  }, 240_000);

  afterAll(async () => {
    const arbitrum = e2e?.devnet?.chains.get('arbitrum')?.proc.child;
    if (arbitrum?.pid) process.kill(arbitrum.pid, 'SIGCONT');
    await e2e?.stop();
  });

  it('a destination RPC that stops answering: the deposit waits undecided (never refunded for it), and is filled once the RPC is back', async () => {
    await s.setInventory(PLENTY);
    const o = await s.quote(3_000_000n);
    const arbitrum = e2e.devnet!.chains.get('arbitrum')!.proc.child;
    process.kill(arbitrum.pid!, 'SIGSTOP');
    try {
      await s.deposit(o);
      // Deposited at depth, yet no inventory reading from arbitrum: it waits, neither filled nor refunded.
      await g.waitOrder(o.q.quote_hash, (v) => v.status === 'deposited', 30_000);
      const stalled = await s.reportUntil(
        (r) => r.undecided === 1 && r.oldest_unsettled?.quote_hash === o.q.quote_hash,
        'the deposit shown as undecided',
      );
      expect(stalled.oldest_unsettled.state).toBe('undecided');
    } finally {
      process.kill(arbitrum.pid!, 'SIGCONT');
    }
    await g.waitOrder(o.q.quote_hash, (v) => v.status === 'fulfilled', 60_000);
    expect(await s.routerEvents('arbitrum', 'Filled', o.q.quote_hash)).toHaveLength(1);
    expect(await s.routerRead('base', 'refunded', o.q.quote_hash)).toBe(false);
  });

  it('a reorg that withdraws a deposit before its depth: no fill for it, while a deposit made after the reorg is filled', async () => {
    await s.setInventory(PLENTY);
    const [gone, kept] = [await s.quote(2_000_000n), await s.quote(2_500_000n)];
    await g.send('base', { to: LOCAL_TOKENS.base.USDC, data: approveCalldata(s.routers['base']!, maxUint256) }, gone.user);
    // Base stops mining; the deposit is mined alone in one block (not yet deep: one confirmation is needed).
    await rpc('base', 'evm_setIntervalMining', [0]);
    const snapshot = (await rpc('base', 'evm_snapshot')) as Hex;
    let reorged = false;
    try {
      const wallet = createWalletClient({ account: gone.user, transport: http(e2e.devnet!.chains.get('base')!.rpcUrl) });
      const hash = await wallet.sendTransaction({ ...depositTx(gone.order, s.routers['base']!), chain: null });
      await rpc('base', 'evm_mine');
      expect((await g.client('base').waitForTransactionReceipt({ hash })).status).toBe('success');
      expect((await g.deposits('base', s.routers['base']!, gone.q.quote_hash as Hex)).length).toBe(1);
      // The block is replaced: back to before the deposit, and the deposit is dropped from the pool.
      await rpc('base', 'evm_revert', [snapshot]);
      await rpc('base', 'anvil_dropAllTransactions');
      reorged = true;
      expect(await g.deposits('base', s.routers['base']!, gone.q.quote_hash as Hex)).toHaveLength(0);
    } finally {
      await rpc('base', 'evm_setIntervalMining', [1]);
    }
    expect(reorged).toBe(true);
    // A later deposit is seen, decided and filled: the watchers and settlement have gone past the reorged height.
    await s.deposit(kept);
    await g.waitOrder(kept.q.quote_hash, (v) => v.status === 'fulfilled', 60_000);
    const view = await g.order(gone.q.quote_hash);
    expect(view.body.status).toBe('quoted');
    expect(await s.routerEvents('arbitrum', 'Filled', gone.q.quote_hash)).toHaveLength(0);
    const report = await e2e.admin('settlement');
    expect(report.out).toMatchObject({ undecided: 0, oldest_unsettled: null, stuck: [] });
  });
});
