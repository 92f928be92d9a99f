/** One chain's holdings of a token, base units (issue 47 §1). */
export interface ChainHolding {
  chain: string;
  /** The filler's balance minus what open fills reserve: what it can spend now. */
  available: bigint;
  /** Deposits of filled orders on this (source) chain not yet claimed: they come back to the filler when claimed. */
  claimsDue: bigint;
  /** Moves into this chain not yet received, at the least each will mint (amount − its maxFee). */
  inbound: bigint;
  /** Moves out of this chain planned and not yet burned: still in its balance, already promised. */
  outboundUnburned: bigint;
}

/** A chain's target for a token (quoting.json `inventory_targets`). */
export interface InventoryTarget {
  target_bps: bigint;
  threshold_bps: bigint;
  min_move: bigint;
  max_move: bigint;
}

export interface PlannedMove {
  src: string;
  dst: string;
  amount: bigint;
}

/** What a chain holds toward its target: spendable now, due back, and on its way in. */
export const holdingOf = (h: ChainHolding): bigint => h.available + h.claimsDue + h.inbound - h.outboundUnburned;

export interface TokenPlan {
  /** The token's holdings over its target chains. */
  total: bigint;
  /** Per chain: its holding, the share it should hold and the share below which a move into it is planned. */
  chains: { chain: string; holding: bigint; target: bigint; threshold: bigint }[];
  /** Chains below their threshold (an alert when no move can cover them). */
  below: string[];
  moves: PlannedMove[];
}

/**
 * The moves that bring a token's chains back toward their targets: each chain below its threshold
 * share of the total is sent what it lacks to reach its target share, from the chain with the most
 * to spare above its own target (and the filler balance to burn it), bounded by the destination's
 * `max_move`; a move smaller than `min_move` is not worth its fees and is not planned. Only chains
 * in `movable` send or receive (CCTP's EVM chains); `busy` chains already have a move on its way in.
 * Integer arithmetic only: shares are floors, so no chain is promised more than the total holds.
 */
export function planToken(
  holdings: readonly ChainHolding[],
  targets: Readonly<Record<string, InventoryTarget>>,
  movable: ReadonlySet<string>,
  busy: ReadonlySet<string>,
): TokenPlan {
  const listed = holdings.filter((h) => targets[h.chain] !== undefined);
  const total = listed.reduce((sum, h) => sum + holdingOf(h), 0n);
  const share = (bps: bigint) => (total > 0n ? (total * bps) / 10_000n : 0n);
  const chains = listed.map((h) => {
    const t = targets[h.chain]!;
    return { chain: h.chain, holding: holdingOf(h), target: share(t.target_bps), threshold: share(t.threshold_bps) };
  });
  const below = chains.filter((c) => c.holding < c.threshold).map((c) => c.chain);
  // What each chain can still give in this pass: above its own target, and in its filler's balance.
  const spare = new Map(
    listed.map((h, i) => {
      const c = chains[i]!;
      const aboveTarget = c.holding - c.target;
      const spendable = h.available - h.outboundUnburned;
      return [h.chain, below.includes(h.chain) || !movable.has(h.chain) ? 0n : min(aboveTarget, spendable)];
    }),
  );
  const moves: PlannedMove[] = [];
  // The furthest below its target first.
  const needy = chains
    .filter((c) => below.includes(c.chain) && movable.has(c.chain) && !busy.has(c.chain))
    .sort((a, b) => cmp(b.target - b.holding, a.target - a.holding));
  for (const c of needy) {
    const t = targets[c.chain]!;
    let donor: string | undefined;
    let most = 0n;
    for (const [chain, can] of spare) {
      if (chain !== c.chain && can > most) {
        donor = chain;
        most = can;
      }
    }
    if (!donor) continue;
    const amount = min(min(c.target - c.holding, most), t.max_move);
    if (amount < t.min_move || amount <= 0n) continue;
    spare.set(donor, most - amount);
    moves.push({ src: donor, dst: c.chain, amount });
  }
  return { total, chains, below, moves };
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
