import { type ChainHolding, type InventoryTarget, planToken } from './rebalance-plan';

const half: InventoryTarget = { target_bps: 5_000n, threshold_bps: 2_500n, min_move: 1_000n, max_move: 1_000_000n };
const h = (chain: string, available: bigint, over: Partial<ChainHolding> = {}): ChainHolding => ({
  chain,
  available,
  claimsDue: 0n,
  inbound: 0n,
  outboundUnburned: 0n,
  ...over,
});
const both = new Set(['base', 'arbitrum']);
const targets = { base: half, arbitrum: half };

describe('planToken', () => {
  it('plans nothing while every chain is at or above its threshold share', () => {
    const plan = planToken([h('base', 70_000n), h('arbitrum', 30_000n)], targets, both, new Set());
    expect(plan.moves).toEqual([]);
    expect(plan.below).toEqual([]);
    expect(plan.total).toBe(100_000n);
  });

  it('sends a chain below its threshold what it lacks to reach its target, from the chain above its own', () => {
    const plan = planToken([h('base', 80_000n), h('arbitrum', 20_000n)], targets, both, new Set());
    expect(plan.below).toEqual(['arbitrum']);
    expect(plan.moves).toEqual([{ src: 'base', dst: 'arbitrum', amount: 30_000n }]);
  });

  it('counts claims due and moves on their way in, and never spends what is promised or only due', () => {
    // arbitrum has 10k but 20k is on its way in: 30k of 100k is above its 25% threshold.
    expect(planToken([h('base', 70_000n), h('arbitrum', 10_000n, { inbound: 20_000n })], targets, both, new Set()).moves).toEqual([]);
    // base's holding is mostly claims due: it can give only what its filler holds, less what it promised already.
    const plan = planToken(
      [h('base', 30_000n, { claimsDue: 60_000n, outboundUnburned: 5_000n }), h('arbitrum', 15_000n)],
      targets,
      both,
      new Set(),
    );
    expect(plan.total).toBe(100_000n);
    expect(plan.moves).toEqual([{ src: 'base', dst: 'arbitrum', amount: 25_000n }]);
  });

  it('bounds a move by max_move, skips one below min_move, and leaves busy or unmovable chains alone', () => {
    const small = { ...half, max_move: 7_000n };
    expect(planToken([h('base', 80_000n), h('arbitrum', 20_000n)], { base: half, arbitrum: small }, both, new Set()).moves).toEqual([
      { src: 'base', dst: 'arbitrum', amount: 7_000n },
    ]);
    const picky = { ...half, min_move: 40_000n };
    expect(planToken([h('base', 80_000n), h('arbitrum', 20_000n)], { base: half, arbitrum: picky }, both, new Set()).moves).toEqual([]);
    expect(planToken([h('base', 80_000n), h('arbitrum', 20_000n)], targets, both, new Set(['arbitrum'])).moves).toEqual([]);
    const solana = planToken([h('base', 80_000n), h('solana', 20_000n)], { base: half, solana: half }, both, new Set());
    expect(solana.below).toEqual(['solana']);
    expect(solana.moves).toEqual([]);
  });

  it('serves the furthest below first and spends each donor once per pass', () => {
    const third: InventoryTarget = { target_bps: 3_333n, threshold_bps: 2_000n, min_move: 1n, max_move: 1_000_000n };
    const three = new Set(['base', 'arbitrum', 'optimism']);
    const plan = planToken(
      [h('base', 80_000n), h('arbitrum', 15_000n), h('optimism', 5_000n)],
      { base: third, arbitrum: third, optimism: third },
      three,
      new Set(),
    );
    // total 100k, target 33,330 each: optimism lacks 28,330 and is served first; base can spare 46,670, then 18,340 to arbitrum.
    expect(plan.moves).toEqual([
      { src: 'base', dst: 'optimism', amount: 28_330n },
      { src: 'base', dst: 'arbitrum', amount: 18_330n },
    ]);
  });

  it('plans nothing from an empty book, and no share is more than the total holds (floors)', () => {
    expect(planToken([h('base', 0n), h('arbitrum', 0n)], targets, both, new Set())).toMatchObject({ total: 0n, moves: [], below: [] });
    // 7 units: each target is 3 (not 3.5), each threshold 1; arbitrum gets 3 and base keeps 4.
    const odd = planToken([h('base', 7n), h('arbitrum', 0n)], { base: half, arbitrum: { ...half, min_move: 1n } }, both, new Set());
    expect(odd.chains.map((c) => [c.target, c.threshold])).toEqual([
      [3n, 1n],
      [3n, 1n],
    ]);
    expect(odd.moves).toEqual([{ src: 'base', dst: 'arbitrum', amount: 3n }]);
  });
});
