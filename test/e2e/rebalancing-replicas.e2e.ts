import { Client } from 'pg';
import { type Address, type Hex, encodeAbiParameters, keccak256, toHex } from 'viem';
import { untilHolds } from '@xchain/stack';
import type { E2eStack } from '../support/e2e-stack';
import { type GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { ARB_USDC, filler, startSettlementStack } from '../support/settlement-fixture';

jest.setTimeout(240_000);

const BASE_USDC = LOCAL_TOKENS.base.USDC;
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

  /** Sets the filler's USDC on a chain (the dev token keeps balances in its first storage slot). */
  const setUsdc = async (chain: 'base' | 'arbitrum', amount: bigint) => {
    const token = chain === 'base' ? BASE_USDC : ARB_USDC;
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [filler.address, 0n]));
    await g.client(chain).request({ method: 'anvil_setStorageAt' as never, params: [token, slot, toHex(amount, { size: 32 })] as never });
  };
  const usdc = (chain: 'base' | 'arbitrum') => g.balanceOf(chain, chain === 'base' ? BASE_USDC : (ARB_USDC as Address), filler.address);

  const query = async <R extends object>(db: string, sql: string, params: unknown[] = []): Promise<R[]> => {
    const c = new Client({ connectionString: e2e.databaseUrl(db) });
    await c.connect();
    try {
      return (await c.query<R>(sql, params)).rows;
    } finally {
      await c.end();
    }
  };
  type Move = { id: string; amount: string; state: string; fee_executed: string | null; burn_tx: string | null };
  const moves = () =>
    query<Move>('quote_engine', 'SELECT id, amount::text, state, fee_executed::text, burn_tx FROM rebalance_moves ORDER BY planned_at');
  /** The relayer's transactions of a move: kind, chain and status, one row per kind ever. */
  const relayerRows = (id: string) =>
    query<{ kind: string; status: string; chain: string }>(
      'gasless_relayer',
      `SELECT l.kind, l.status, l.chain FROM lane_txs l
       WHERE l.id IN (SELECT lane_tx_id FROM approve_txs WHERE move_id = $1 UNION ALL SELECT lane_tx_id FROM burn_txs WHERE move_id = $1
                      UNION ALL SELECT lane_tx_id FROM mint_txs WHERE move_id = $1)
       ORDER BY l.created_at`,
      [id],
    );
  const received = (n: number) =>
    untilHolds(`${n} move(s) received`, moves, (rows) => rows.length >= n && rows.slice(0, n).every((m) => m.state === 'received'), {
      timeoutMs: 90_000,
      everyMs: 300,
    });
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
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it('plans one move and sends each of its steps once, both quote-engines running their rebalancer', async () => {
    await setUsdc('base', 1_000n * USDC);
    await setUsdc('arbitrum', 100n * USDC);
    const [m] = await received(1);
    const fee = BigInt(m!.fee_executed!);
    expect(m!.amount).toBe((450n * USDC).toString());
    expect((await relayerRows(m!.id)).map((r) => [r.kind, r.chain, r.status])).toEqual(ONCE_EACH);
    expect(await usdc('base')).toBe(550n * USDC);
    expect(await usdc('arbitrum')).toBe(550n * USDC - fee);
    // Each replica's own passes see arbitrum refilled: both rebalancers run (their gauges come from their passes).
    for (const i of [0, 1])
      await untilHolds(
        `quote-engine ${i}'s rebalancer reading arbitrum refilled`,
        () => metric(i, 'rebalance_holding{token="USDC",chain="arbitrum"}'),
        (v) => v === Number(550n * USDC - fee),
        { timeoutMs: 30_000, everyMs: 300 },
      );
    expect(await moves()).toHaveLength(1);
  });

  it('kill -9 of one quote-engine mid-move: the other completes it, each step once', async () => {
    const attester = e2e.devnet!.attester!;
    const baseBefore = await usdc('base');
    const arbBefore = baseBefore / 10n;
    attester.withhold();
    try {
      await setUsdc('arbitrum', arbBefore);
      // Mid-move: burned, its attestation withheld.
      const open = await untilHolds(
        'the second move burned, its attestation withheld',
        async () => (await moves())[1],
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
      const [, m] = await received(2);
      expect(m!.id).toBe(open!.id);
      expect((await relayerRows(m!.id)).map((r) => [r.kind, r.chain, r.status])).toEqual(ONCE_EACH);
      expect(await usdc('base')).toBe(baseBefore - BigInt(m!.amount));
      expect(await usdc('arbitrum')).toBe(arbBefore + BigInt(m!.amount) - BigInt(m!.fee_executed!));
      expect(await moves()).toHaveLength(2);
    } finally {
      attester.release();
    }
    // Back with two: the restarted replica's rebalancer reads arbitrum refilled too, and plans nothing more.
    await e2e.stack.restart('quote-engine', 1);
    const arbAfter = await usdc('arbitrum');
    await untilHolds(
      "the restarted quote-engine's rebalancer reading arbitrum refilled",
      () => metric(1, 'rebalance_holding{token="USDC",chain="arbitrum"}'),
      (v) => v === Number(arbAfter),
      { timeoutMs: 30_000, everyMs: 300 },
    );
    expect(await moves()).toHaveLength(2);
  });
});
