import type { Hex } from 'viem';
import { untilHolds } from '@xchain/stack';
import type { E2eStack } from '../support/e2e-stack';
import type { GaslessClient } from '../support/gasless-client';
import { RebalancingProbe } from '../support/rebalancing';
import { startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(240_000);

const USDC = 1_000_000n;
const REBALANCE_ENV = { REBALANCE_ENABLED: 'true', REBALANCE_POLL_MS: '300' };

/**
 * Rebalancing with two quote-engines (issue 47): both run their rebalancer over one database, with
 * no leader. Planning under one lock plans a move once; each step taken by whichever replica comes
 * first, asked of the relayer by kind and move, is one transaction. kill -9 of one replica mid-move
 * leaves the other to finish it.
 */
describe('rebalancing with two quote-engines: one move, each step once', () => {
  let e2e: E2eStack;
  let g: GaslessClient;

  let p: RebalancingProbe;

  /** A gauge of quote-engine instance `i`'s /metrics: the sample `series` (`name{labels}`). */
  const metric = async (i: number, series: string): Promise<number | undefined> => {
    const port = e2e.stack.instancePorts.get('quote-engine')![i]!;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  const ONCE_EACH = [
    ['approve', 'base', 'confirmed'],
    ['burn', 'base', 'confirmed'],
    ['mint', 'arbitrum', 'confirmed'],
  ];

  beforeAll(async () => {
    ({ e2e, g } = await startSettlementStack(REBALANCE_ENV, { replicas: 2 }));
    p = new RebalancingProbe(e2e, g);
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it('plans one move and sends each of its steps once, both quote-engines running their rebalancer', async () => {
    await p.setUsdc('base', 1_000n * USDC);
    await p.setUsdc('arbitrum', 100n * USDC);
    const [m] = await p.received(1);
    const fee = BigInt(m!.fee_executed!);
    expect(m!.amount).toBe((450n * USDC).toString());
    expect((await p.relayerRows(m!.id)).map((r) => [r.kind, r.chain, r.status])).toEqual(ONCE_EACH);
    expect(await p.usdc('base')).toBe(550n * USDC);
    expect(await p.usdc('arbitrum')).toBe(550n * USDC - fee);
    // Each replica's own passes see arbitrum refilled: both rebalancers run (their gauges come from their passes).
    for (const i of [0, 1])
      await untilHolds(
        `quote-engine ${i}'s rebalancer reading arbitrum refilled`,
        () => metric(i, 'rebalance_holding{token="USDC",chain="arbitrum"}'),
        (v) => v === Number(550n * USDC - fee),
        { timeoutMs: 30_000, everyMs: 300 },
      );
    expect(await p.moves()).toHaveLength(1);
  });

  it('kill -9 of one quote-engine mid-move: the other completes it, each step once', async () => {
    const attester = e2e.devnet!.attester!;
    const baseBefore = await p.usdc('base');
    const arbBefore = baseBefore / 10n;
    attester.withhold();
    try {
      await p.setUsdc('arbitrum', arbBefore);
      // Mid-move: burned, its attestation withheld.
      const open = await untilHolds(
        'the second move burned, its attestation withheld',
        async () => (await p.moves())[1],
        (m) => m !== undefined && m.state === 'burned' && m.burn_tx !== null && attester.withheld(m.burn_tx as Hex) > 0,
        { timeoutMs: 60_000, everyMs: 200 },
      );
      const victim = e2e.stack.instances.get('quote-engine')![1]!;
      const exited = new Promise((r) => victim.child.once('exit', r));
      victim.child.kill('SIGKILL');
      await exited;
      // The one left asks for the attestation on its passes; released, it mints.
      const asked = attester.withheld(open!.burn_tx as Hex);
      await untilHolds(
        'the quote-engine left asking for the attestation',
        async () => attester.withheld(open!.burn_tx as Hex),
        (n) => n > asked,
        {
          timeoutMs: 30_000,
          everyMs: 200,
        },
      );
      attester.release();
      const [, m] = await p.received(2);
      expect(m!.id).toBe(open!.id);
      expect((await p.relayerRows(m!.id)).map((r) => [r.kind, r.chain, r.status])).toEqual(ONCE_EACH);
      expect(await p.usdc('base')).toBe(baseBefore - BigInt(m!.amount));
      expect(await p.usdc('arbitrum')).toBe(arbBefore + BigInt(m!.amount) - BigInt(m!.fee_executed!));
      expect(await p.moves()).toHaveLength(2);
    } finally {
      attester.release();
    }
    // Back with two: the restarted replica's rebalancer reads arbitrum refilled too, and plans nothing more.
    await e2e.stack.restart('quote-engine', 1);
    const arbAfter = await p.usdc('arbitrum');
    await untilHolds(
      "the restarted quote-engine's rebalancer reading arbitrum refilled",
      () => metric(1, 'rebalance_holding{token="USDC",chain="arbitrum"}'),
      (v) => v === Number(arbAfter),
      { timeoutMs: 30_000, everyMs: 300 },
    );
    expect(await p.moves()).toHaveLength(2);
  });
});
