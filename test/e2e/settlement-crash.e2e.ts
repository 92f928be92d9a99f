import { join } from 'node:path';
import { DEV_FILLER_KEY } from '@xchain/devnet';
import { cancelTx } from '@xchain/evm-gasless';
import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { SERVICES, startBuiltService } from '@xchain/stack';
import type { E2eStack } from '../support/e2e-stack';
import { type GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { PLENTY, SETTLEMENT_ENV, type SettlementFixture, filler, startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(180_000);

type Killable = 'gasless-relayer' | 'quote-engine';
const DATABASES: Record<Killable, string> = { 'gasless-relayer': 'gasless_relayer', 'quote-engine': 'quote_engine' };

/**
 * kill -9 of the relayer or the quote-engine while a fill or a refund is in flight (its transaction
 * signed and sent, not yet mined): after the restart each order has exactly one fill or exactly one
 * cancel and one refund, never both, and nothing is left open.
 */
describe('settlement survives kill -9 at every stage', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;

  const rpc = (chain: string, method: string, params: unknown[] = []) => g.client(chain).request({ method: method as never, params: params as never });

  const kill = async (name: Killable) => {
    const proc = e2e.stack.services.get(name)!;
    const exited = new Promise((r) => proc.child.once('exit', r));
    proc.child.kill('SIGKILL');
    await exited;
  };
  const restart = async (name: Killable) => {
    const proc = await startBuiltService({
      spec: SERVICES.find((x) => x.name === name)!,
      port: e2e.ports[name],
      env: { ...e2e.stack.env, ...SETTLEMENT_ENV, ...e2e.stack.bus.envFor(name), DATABASE_URL: e2e.databaseUrl(DATABASES[name]) },
      logFile: join(e2e.logDir, `${name}.log`),
    });
    e2e.stack.services.set(name, proc);
  };

  /** Arbitrum stops mining, so the operator's next transaction there waits in its mempool. */
  const holdArbitrum = async () => {
    await rpc('arbitrum', 'evm_setAutomine', [false]);
    await rpc('arbitrum', 'evm_setIntervalMining', [0]);
  };
  const releaseArbitrum = async () => {
    await rpc('arbitrum', 'evm_setIntervalMining', [1]);
  };

  /** Resolves once the operator wallet has `count` more transactions pending on arbitrum than mined. */
  const pendingOnArbitrum = async (count: number) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [mined, pending] = await Promise.all([
        g.client('arbitrum').getTransactionCount({ address: filler.address, blockTag: 'latest' }),
        g.client('arbitrum').getTransactionCount({ address: filler.address, blockTag: 'pending' }),
      ]);
      if (pending - mined >= count) return mined;
      if (Date.now() > deadline) throw new Error(`the operator sent nothing on arbitrum within 30 s (mined ${mined}, pending ${pending})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    ({ e2e, g, s } = await startSettlementStack());
  }, 240_000);

  afterAll(async () => {
    await e2e?.stop();
  });

  for (const victim of ['gasless-relayer', 'quote-engine'] as const) {
    it(`a fill sent just before a kill -9 of the ${victim} lands once after the restart`, async () => {
      await s.setInventory(PLENTY);
      const o = await s.quote(7_000_000n);
      await holdArbitrum();
      let minedBefore: number;
      try {
        await s.deposit(o);
        minedBefore = await pendingOnArbitrum(1);
        await kill(victim);
      } finally {
        await releaseArbitrum();
      }
      await restart(victim);
      await g.waitOrder(o.q.quote_hash, (v) => v.status === 'fulfilled', 60_000);
      expect(await s.routerEvents('arbitrum', 'Filled', o.q.quote_hash)).toHaveLength(1);
      expect(await s.routerRead('arbitrum', 'cancelled', o.q.quote_hash)).toBe(false);
      expect(await g.client('arbitrum').getTransactionCount({ address: filler.address })).toBe(minedBefore! + 1);
      const report = await e2e.admin('settlement');
      expect(report.out).toMatchObject({ open: { fill: 0, cancel: 0, refund: 0 }, undecided: 0, stuck: [] });
    });

    it(`a refund whose cancel was sent just before a kill -9 of the ${victim} ends in one cancel and one refund after the restart`, async () => {
      await s.setInventory(PLENTY);
      const o = await s.quote(6_000_000n);
      await s.setInventory(0n); // no inventory: the order is refunded (cancelled on arbitrum first)
      await holdArbitrum();
      try {
        await s.deposit(o);
        await pendingOnArbitrum(1);
        await kill(victim);
      } finally {
        await releaseArbitrum();
      }
      await restart(victim);
      await g.waitOrder(o.q.quote_hash, (v) => v.status === 'refunded', 60_000);
      expect(await s.routerEvents('arbitrum', 'Cancelled', o.q.quote_hash)).toHaveLength(1);
      expect(await s.routerEvents('base', 'Refunded', o.q.quote_hash)).toHaveLength(1);
      expect(await s.routerEvents('arbitrum', 'Filled', o.q.quote_hash)).toHaveLength(0);
      expect(await g.balanceOf('base', LOCAL_TOKENS.base.USDC, o.user.address)).toBe(6_000_000n);
    });
  }

  it('a fill that races a cancellation of the same order: the cancel wins the nonce, the fill never lands, the order is refunded once', async () => {
    await s.setInventory(PLENTY);
    const o = await s.quote(4_000_000n);
    await holdArbitrum();
    try {
      await s.deposit(o);
      const nonce = await pendingOnArbitrum(1);
      // Another hand on the operator key (an operator's manual cancel) takes the pending fill's nonce with a higher fee.
      const fees = await g.client('arbitrum').estimateFeesPerGas();
      const wallet = createWalletClient({ account: privateKeyToAccount(DEV_FILLER_KEY), transport: http(e2e.devnet!.chains.get('arbitrum')!.rpcUrl) });
      const tx = cancelTx(o.order, s.routers['arbitrum']!);
      await wallet.sendTransaction({ ...tx, nonce, gas: 200_000n, maxFeePerGas: fees.maxFeePerGas * 10n, maxPriorityFeePerGas: fees.maxPriorityFeePerGas * 10n + 1n, chain: null });
    } finally {
      await releaseArbitrum();
    }
    await g.waitOrder(o.q.quote_hash, (v) => v.status === 'refunded', 90_000);
    expect(await s.routerEvents('arbitrum', 'Filled', o.q.quote_hash)).toHaveLength(0);
    expect(await s.routerEvents('arbitrum', 'Cancelled', o.q.quote_hash)).toHaveLength(1);
    expect(await s.routerEvents('base', 'Refunded', o.q.quote_hash)).toHaveLength(1);
    expect(await g.balanceOf('base', LOCAL_TOKENS.base.USDC, o.user.address)).toBe(4_000_000n);
    const report = await e2e.admin('settlement');
    expect(report.out).toMatchObject({ open: { fill: 0, cancel: 0, refund: 0 }, stuck: [] });
  });
});
