import { Prisma } from '@xchain/quote-engine-db';
import { RpcClient } from '@xchain/messaging';
import { LOGGER, Metrics, Periodic } from '@xchain/service-kit';
import { newTestService } from '@xchain/service-kit/testing';
import { Registry } from 'prom-client';
import { QUOTING_CONFIG } from '../config.tokens';
import { InventoryBook } from '../inventory/inventory-book';
import { RegistryCache } from '../registry/registry-cache';
import { Attestations } from './attestations';
import { type RebalanceMove, RebalanceRepository } from './rebalance.repository';
import { REBALANCE_CONFIG, Rebalancer } from './rebalancer';

const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const ARB_USDC = '0xaf88d065e77c8cC2239327C5EDb3A432268e5831';
const FILLER = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';
const SOL_USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const half = { target_bps: 5_000n, threshold_bps: 2_500n, min_move: 1n, max_move: 10n ** 15n };

/** The rebalancer over faked collaborators: what it asks the relayer, and how each answer moves a move on. */
function newRebalancer(
  balances: Record<string, bigint>,
  ageMs = 0,
  targets: Record<string, Record<string, typeof half>> = { USDC: { base: half, arbitrum: half } },
) {
  const metrics = new Metrics(new Registry());
  const t = newTestService(Rebalancer, [
    { provide: QUOTING_CONFIG, useValue: { inventory_targets: targets } },
    {
      provide: REBALANCE_CONFIG,
      useValue: {
        enabled: true,
        pollMs: 1000,
        stuckAfterMs: 60_000,
        tokenMessenger: '0x28b5a0e9C621a5BadaA536219b3a228C8168cf5d',
        messageTransmitter: '0x81D40F21F12A8F0E3252Bccb954D722d4c464B64',
        minFinalityThreshold: 1000,
        maxFeeBps: 2n,
        requestTimeoutMs: 1000,
      },
    },
    { provide: LOGGER, useValue: { info: jest.fn(), warn: jest.fn(), error: jest.fn(), debug: jest.fn() } },
    { provide: Metrics, useValue: metrics },
  ]);
  const registry = t.mock(RegistryCache);
  registry.chain.mockImplementation((name: string) => ({ name, vm: name === 'solana' ? 'svm' : 'evm' }) as never);
  registry.bySymbol.mockImplementation(
    (c: { name: string }, symbol: string) =>
      ({
        address: symbol !== 'USDC' ? `0x${'77'.repeat(20)}` : c.name === 'base' ? BASE_USDC : c.name === 'solana' ? SOL_USDC : ARB_USDC,
      }) as never,
  );
  const inventory = t.mock(InventoryBook);
  Object.defineProperty(inventory, 'maxAgeMs', { value: 60_000 });
  inventory.reading.mockImplementation((chain: string) => ({ balance: balances[chain] ?? 0n, reserved: 0n, wallet: FILLER, ageMs }));
  inventory.refresh.mockResolvedValue(undefined);
  const repo = t.mock(RebalanceRepository);
  repo.claimsDue.mockResolvedValue([]);
  repo.recent.mockResolvedValue([]);
  repo.advance.mockResolvedValue(true);
  const rpc = t.mock(RpcClient);
  return { sut: t.sut, repo, rpc, clock: t.clock, attestations: t.mock(Attestations), inventory, metrics };
}

const move = (over: Partial<RebalanceMove>): RebalanceMove =>
  ({
    id: `0x${'11'.repeat(32)}`,
    token: 'USDC',
    srcChain: 'base',
    dstChain: 'arbitrum',
    amount: new Prisma.Decimal(450_000_000),
    maxFee: new Prisma.Decimal(90_000),
    state: 'planned',
    burnTx: null,
    message: null,
    attestation: null,
    feeExecuted: null,
    mintTx: null,
    error: null,
    plannedAt: new Date(0),
    burnedAt: null,
    attestedAt: null,
    receivedAt: null,
    updatedAt: new Date(0),
    ...over,
  }) as RebalanceMove;

const answer = (status: string, extra: object = {}) => ({
  kind: 'x',
  quote_hash: 'x',
  chain: 'x',
  wallet: FILLER,
  status,
  tx_hashes: [],
  ...extra,
});

describe('Rebalancer', () => {
  it('plans the move a chain below its threshold needs, with maxFee rounded up, under the planning lock', async () => {
    const r = newRebalancer({ base: 1_000_000_000n, arbitrum: 100_000_000n });
    r.repo.open.mockResolvedValue([]);
    let planned: unknown[] = [];
    r.repo.plan.mockImplementation(async (fn) => (planned = await fn([])) as never);
    await r.sut.pass();
    expect(planned).toEqual([expect.objectContaining({ srcChain: 'base', dstChain: 'arbitrum', amount: 450_000_000n, maxFee: 90_000n })]);
    // 2 bps of 450,000,001 is 90,000.0002: the fee allowed is rounded up.
    const odd = newRebalancer({ base: 1_000_000_002n, arbitrum: 100_000_000n });
    odd.repo.open.mockResolvedValue([]);
    odd.repo.plan.mockImplementation(async (fn) => (planned = await fn([])) as never);
    await odd.sut.pass();
    expect(planned).toEqual([expect.objectContaining({ amount: 450_000_001n, maxFee: 90_001n })]);
  });

  it('plans nothing while a move may or may not show in the balances yet (burn or mint asked, or a burn newer than the reading)', async () => {
    for (const open of [
      move({ state: 'approved', dstChain: 'optimism' }),
      move({ state: 'attested', dstChain: 'optimism', burnTx: '0xb', burnedAt: new Date(0) }),
    ]) {
      const r = newRebalancer({ base: 1_000_000_000n, arbitrum: 100_000_000n });
      r.repo.open.mockResolvedValue([open]);
      r.rpc.call.mockResolvedValue(answer('queued') as never);
      await r.sut.pass();
      expect(r.repo.plan).not.toHaveBeenCalled();
    }
    // Burned at t=5s, the source read 1s before that: wait. Read after it: the move is counted on its way in.
    const r = newRebalancer({ base: 1_000_000_000n, arbitrum: 100_000_000n }, 1_000);
    r.clock.set(6_000);
    const burned = move({ state: 'burned', dstChain: 'optimism', burnTx: '0xb', burnedAt: new Date(5_500) });
    r.repo.open.mockResolvedValue([burned]);
    r.attestations.ofBurn.mockResolvedValue({ kind: 'pending', why: 'not indexed yet' });
    await r.sut.pass();
    expect(r.repo.plan).not.toHaveBeenCalled();
    burned.burnedAt = new Date(4_000);
    r.repo.plan.mockResolvedValue([]);
    await r.sut.pass();
    expect(r.repo.plan).toHaveBeenCalledTimes(1);
    // Received at 5.5 s, the destination read at 5 s: its balance may not show the mint yet; wait.
    r.repo.open.mockResolvedValue([]);
    r.repo.recent.mockResolvedValue([move({ state: 'received', dstChain: 'arbitrum', burnTx: '0xb', receivedAt: new Date(5_500) })]);
    await r.sut.pass();
    expect(r.repo.plan).toHaveBeenCalledTimes(1);
  });

  it('moves each step on only from the answer of its own transaction, and fails a move only before its burn', async () => {
    const r = newRebalancer({ base: 1_000_000_000n, arbitrum: 500_000_000n });
    r.repo.plan.mockResolvedValue([]);
    // planned: the approve is asked of the relayer, keyed by the move; confirmed moves it on.
    r.repo.open.mockResolvedValue([move({ state: 'planned' })]);
    r.rpc.call.mockResolvedValueOnce(answer('submitted') as never);
    await r.sut.pass();
    expect(r.rpc.call.mock.calls[0]![1]).toMatchObject({ kind: 'approve', quote_hash: `0x${'11'.repeat(32)}`, chain: 'base' });
    expect(r.repo.advance).not.toHaveBeenCalled();
    r.rpc.call.mockResolvedValueOnce(answer('confirmed', { tx_hash: '0xa' }) as never);
    await r.sut.pass();
    expect(r.repo.advance).toHaveBeenLastCalledWith(`0x${'11'.repeat(32)}`, 'planned', 'approved');
    // approved: a burn that reverted fails the move (nothing left the filler).
    r.repo.open.mockResolvedValue([move({ state: 'approved' })]);
    r.rpc.call.mockResolvedValueOnce(answer('failed', { error: 'SIMULATION_REVERTED: x' }) as never);
    await r.sut.pass();
    expect(r.repo.advance).toHaveBeenLastCalledWith(`0x${'11'.repeat(32)}`, 'approved', 'failed', {
      error: 'BURN_FAILED: SIMULATION_REVERTED: x',
    });
    // attested: a mint refused because the nonce is used was received (relayed by someone else); any other failure is stuck.
    r.repo.open.mockResolvedValue([
      move({ state: 'attested', burnTx: '0xb', message: '0x01', attestation: '0x02', burnedAt: new Date(0) }),
    ]);
    r.rpc.call.mockResolvedValueOnce(answer('failed', { error: 'SIMULATION_REVERTED: Nonce already used' }) as never);
    await r.sut.pass();
    expect(r.repo.advance).toHaveBeenLastCalledWith(`0x${'11'.repeat(32)}`, 'attested', 'received', {});
    r.rpc.call.mockResolvedValueOnce(answer('failed', { error: 'TX_REVERTED: out of gas' }) as never);
    await r.sut.pass();
    expect(r.repo.advance).toHaveBeenLastCalledWith(`0x${'11'.repeat(32)}`, 'attested', 'stuck', {
      error: 'MINT_FAILED: TX_REVERTED: out of gas',
    });
  });

  it('records an attestation only for the burned amount, and never asks for a second burn while it waits', async () => {
    const r = newRebalancer({ base: 1_000_000_000n, arbitrum: 500_000_000n });
    r.repo.plan.mockResolvedValue([]);
    r.repo.open.mockResolvedValue([move({ state: 'burned', burnTx: '0xb', burnedAt: new Date(0) })]);
    r.clock.set(120_000); // past stuckAfterMs: flagged, not burned again
    r.attestations.ofBurn.mockResolvedValueOnce({ kind: 'pending', why: 'pending_confirmations' });
    await r.sut.pass();
    expect(r.rpc.call).not.toHaveBeenCalled();
    expect(r.repo.advance).not.toHaveBeenCalled();
    r.attestations.ofBurn.mockResolvedValueOnce({
      kind: 'complete',
      message: '0x01',
      attestation: '0x02',
      feeExecuted: 45_000n,
      amount: 1n,
    });
    await r.sut.pass();
    expect(r.repo.advance).not.toHaveBeenCalled();
    r.attestations.ofBurn.mockResolvedValueOnce({
      kind: 'complete',
      message: '0x01',
      attestation: '0x02',
      feeExecuted: 45_000n,
      amount: 450_000_000n,
    });
    await r.sut.pass();
    expect(r.repo.advance).toHaveBeenCalledWith(`0x${'11'.repeat(32)}`, 'burned', 'attested', {
      message: '0x01',
      attestation: '0x02',
      feeExecuted: 45_000n,
    });
  });

  it('reports an idle pass when balanced with nothing open, and a reading that changed or is below a threshold wakes it at once', async () => {
    const balances: Record<string, bigint> = { base: 500_000_000n, arbitrum: 500_000_000n };
    const r = newRebalancer(balances);
    r.repo.open.mockResolvedValue([]);
    expect(await r.sut.pass()).toBe(Periodic.IDLE);
    // An open move keeps the loop at its pace.
    r.repo.open.mockResolvedValueOnce([move({ state: 'burned', burnTx: '0xb', burnedAt: new Date(0) })]);
    r.attestations.ofBurn.mockResolvedValue({ kind: 'pending', why: 'not yet' } as never);
    expect(await r.sut.pass()).toBeUndefined();

    const [reader] = r.inventory.onReading.mock.calls[0]!;
    const wake = jest.spyOn(Periodic.prototype, 'wake');
    // A first reading of arbitrum's USDC is a change: a pass, so the report shows it.
    reader('arbitrum', ARB_USDC.toLowerCase(), 400_000_000n);
    expect(wake).toHaveBeenCalledTimes(1);
    // The same again, above arbitrum's threshold (a quarter of the 1,000 held and the 449.91 on its way in): no pass.
    reader('arbitrum', ARB_USDC.toLowerCase(), 400_000_000n);
    // Base's USDC read on arbitrum is no target token there.
    reader('arbitrum', BASE_USDC.toLowerCase(), 100_000_000n);
    expect(wake).toHaveBeenCalledTimes(1);
    reader('arbitrum', ARB_USDC.toLowerCase(), 300_000_000n);
    expect(wake).toHaveBeenCalledTimes(2);
    // Below the threshold, unchanged: still a pass.
    reader('arbitrum', ARB_USDC.toLowerCase(), 300_000_000n);
    expect(wake).toHaveBeenCalledTimes(3);
    wake.mockRestore();
  });

  it('moves only USDC between EVM chains: Solana and other tokens below their threshold are shown and alerted, never moved', async () => {
    const third = { target_bps: 3_333n, threshold_bps: 1_500n, min_move: 1n, max_move: 10n ** 15n };
    const r = newRebalancer({ base: 500_000_000n, arbitrum: 500_000_000n, solana: 10_000_000n }, 0, {
      USDC: { base: third, arbitrum: third, solana: third },
      WETH: { base: half, arbitrum: half },
    });
    r.inventory.reading.mockImplementation((chain: string, token: string) =>
      token === `0x${'77'.repeat(20)}`
        ? { balance: chain === 'base' ? 10n ** 18n : 10n ** 15n, reserved: 0n, wallet: FILLER, ageMs: 0 }
        : {
            balance: ({ base: 500_000_000n, arbitrum: 500_000_000n, solana: 10_000_000n } as Record<string, bigint>)[chain]!,
            reserved: 0n,
            wallet: FILLER,
            ageMs: 0,
          },
    );
    r.repo.open.mockResolvedValue([]);
    r.repo.plan.mockImplementation(async (fn) => (await fn([])) as never);
    await r.sut.pass();
    // Solana holds 1 % of the USDC and WETH's arbitrum 0.1 %: both below, nothing planned for either.
    expect(r.repo.plan).not.toHaveBeenCalled();
    const report = await r.sut.report();
    expect(report.map((t) => [t.token, t.moved, t.chains.map((c) => [c.chain, c.below_threshold])])).toEqual([
      [
        'USDC',
        true,
        [
          ['base', false],
          ['arbitrum', false],
          ['solana', true],
        ],
      ],
      [
        'WETH',
        false,
        [
          ['base', false],
          ['arbitrum', true],
        ],
      ],
    ]);
    // The gauge InventoryBelowTarget fires on: 1 for exactly those two.
    r.repo.recent.mockResolvedValue([]);
    const below = (await r.metrics.render()).split('\n').filter((l) => l.startsWith('rebalance_below_threshold{') && l.endsWith(' 1'));
    expect(below.sort()).toEqual([
      'rebalance_below_threshold{token="USDC",chain="solana"} 1',
      'rebalance_below_threshold{token="WETH",chain="arbitrum"} 1',
    ]);
  });
});
