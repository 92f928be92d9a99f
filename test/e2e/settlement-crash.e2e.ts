import { join } from 'node:path';
import { DEV_FILLER_KEY } from '@xchain/devnet';
import { cancelTx } from '@xchain/evm-gasless';
import { Client } from 'pg';
import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { SERVICES, startBuiltService, untilHolds } from '@xchain/stack';
import type { E2eStack } from '../support/e2e-stack';
import { type GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { PLENTY, SETTLEMENT_ENV, type SettlementFixture, filler, startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(180_000);

type Killable = 'gasless-relayer' | 'quote-engine';

/**
 * kill -9 of the relayer or the quote-engine at each stage of a fill and of a refund (the fill, the
 * destination's cancel, the source's refund: signed, stored and sent, not yet mined): after the
 * restart each order has exactly one fill or exactly one cancel and one refund, never both, and
 * nothing is left open or stuck.
 */
describe('settlement survives kill -9 at every stage', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;

  const rpc = (chain: string, method: string, params: unknown[] = []) =>
    g.client(chain).request({ method: method as never, params: params as never });

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
      env: { ...e2e.stack.envFor(name), ...SETTLEMENT_ENV },
      logFile: join(e2e.logDir, `${name}.log`),
    });
    e2e.stack.services.set(name, proc);
  };

  /** A chain stops mining, so the operator's next transaction there waits in its mempool. */
  const hold = async (chain: string) => {
    await rpc(chain, 'evm_setAutomine', [false]);
    await rpc(chain, 'evm_setIntervalMining', [0]);
  };
  const release = async (chain: string) => {
    await rpc(chain, 'evm_setIntervalMining', [1]);
  };

  /** Resolves once the operator wallet has a transaction pending on arbitrum; answers its mined nonce. */
  const pendingOnArbitrum = async () => {
    const nonces = () =>
      Promise.all([
        g.client('arbitrum').getTransactionCount({ address: filler.address, blockTag: 'latest' }),
        g.client('arbitrum').getTransactionCount({ address: filler.address, blockTag: 'pending' }),
      ]).then(([mined, pending]) => ({ mined, pending }));
    return (await untilHolds('a transaction of the operator pending on arbitrum', nonces, (n) => n.pending > n.mined, { everyMs: 100 }))
      .mined;
  };

  beforeAll(async () => {
    ({ e2e, g, s } = await startSettlementStack());
  }, 240_000);

  afterAll(async () => {
    await e2e?.stop();
  });

  /**
   * Resolves once the relayer has signed, stored and broadcast the order's `kind` transaction (its
   * row `submitted`, read from the relayer's own database), which the held chain will not mine.
   */
  const inFlight = (kind: 'fill' | 'cancel' | 'refund', quoteHash: string) =>
    relayerRow(kind, quoteHash, (status) => status === 'submitted', 'in flight');
  /** Resolves once the relayer's row of the order's `kind` transaction has a status that `ok` accepts. */
  const relayerRow = async (kind: 'fill' | 'cancel' | 'refund', quoteHash: string, ok: (status: string) => boolean, what: string) => {
    const db = new Client({ connectionString: e2e.databaseUrl('gasless_relayer') });
    await db.connect();
    try {
      const status = async () =>
        (
          await db.query<{ status: string }>(
            `SELECT l.status FROM ${kind}_txs w JOIN lane_txs l ON l.id = w.lane_tx_id WHERE w.quote_hash = $1`,
            [quoteHash],
          )
        ).rows[0]?.status ?? 'no row';
      await untilHolds(`the ${kind} of ${quoteHash} ${what}`, status, (s) => s !== 'no row' && ok(s), { everyMs: 100 });
    } finally {
      await db.end();
    }
  };

  /** Where each stage's transaction lands: the fill and the cancel on the destination, the refund on the source. */
  const CHAIN_OF = { fill: 'arbitrum', cancel: 'arbitrum', refund: 'base' } as const;

  for (const victim of ['gasless-relayer', 'quote-engine'] as const) {
    for (const stage of ['fill', 'cancel', 'refund'] as const) {
      it(`kill -9 of the ${victim} with the ${stage} in flight: after the restart the order ends ${stage === 'fill' ? 'filled' : 'refunded'}, each step once`, async () => {
        await s.setInventory(PLENTY);
        const o = await s.quote(6_000_000n);
        if (stage !== 'fill') await s.setInventory(0n); // no inventory: refunded (cancelled on arbitrum first)
        const chain = CHAIN_OF[stage];
        // Arbitrum can hold from the start; base must mine until the deposit is deep and decided, and
        // the refund on it is sent only after the cancel's confirmation on arbitrum.
        if (chain === 'arbitrum') await hold(chain);
        try {
          await s.deposit(o);
          if (chain === 'base') {
            await relayerRow('cancel', o.q.quote_hash, () => true, 'asked for');
            await hold(chain);
          }
          await inFlight(stage, o.q.quote_hash);
          await kill(victim);
        } finally {
          await release(chain);
        }
        await restart(victim);
        const view = await g.waitOrder(o.q.quote_hash, (v) => v.status === 'fulfilled' || v.status === 'refunded', 60_000);
        const steps = await Promise.all([
          s.routerEvents('arbitrum', 'Filled', o.q.quote_hash),
          s.routerEvents('arbitrum', 'Cancelled', o.q.quote_hash),
          s.routerEvents('base', 'Refunded', o.q.quote_hash),
        ]);
        if (stage === 'fill') {
          expect(view.status).toBe('fulfilled');
          expect(steps.map((x) => x.length)).toEqual([1, 0, 0]);
        } else {
          expect(view.status).toBe('refunded');
          expect(steps.map((x) => x.length)).toEqual([0, 1, 1]);
          expect(await g.balanceOf('base', LOCAL_TOKENS.base.USDC, o.user.address)).toBe(6_000_000n);
        }
        await s.reportUntil(
          (r) => r.open.fill + r.open.cancel + r.open.refund === 0 && r.undecided === 0 && r.stuck.length === 0,
          'nothing open or stuck',
        );
      });
    }
  }

  it('a fill that races a cancellation of the same order: the cancel wins the nonce, the fill never lands, the order is refunded once', async () => {
    await s.setInventory(PLENTY);
    const o = await s.quote(4_000_000n);
    await hold('arbitrum');
    try {
      await s.deposit(o);
      const nonce = await pendingOnArbitrum();
      // Another hand on the operator key (an operator's manual cancel) takes the pending fill's nonce with a higher fee.
      const fees = await g.client('arbitrum').estimateFeesPerGas();
      const wallet = createWalletClient({
        account: privateKeyToAccount(DEV_FILLER_KEY),
        transport: http(e2e.devnet!.chains.get('arbitrum')!.rpcUrl),
      });
      const tx = cancelTx(o.order, s.routers['arbitrum']!);
      await wallet.sendTransaction({
        ...tx,
        nonce,
        gas: 200_000n,
        maxFeePerGas: fees.maxFeePerGas * 10n,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas * 10n + 1n,
        chain: null,
      });
    } finally {
      await release('arbitrum');
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
