export interface WalkLimits {
  /** Largest move of one step, in basis points of the current value. */
  stepBps: bigint;
  /** Largest distance from the anchor (the file's value), in basis points of the anchor. */
  bandBps: bigint;
}

/** ±5 bps a tick moves quotes visibly; ±1 % keeps a long-running stack near the file's prices. */
export const DEFAULT_WALK: WalkLimits = { stepBps: 5n, bandBps: 100n };

const BPS = 10_000n;

/**
 * One step of a bounded random walk, integers only: `draw` (uniform 32-bit) picks a move of
 * −stepBps…+stepBps of the current value, and the result is clamped to the band around the
 * anchor. The modulo bias of 2^32 mod (2·step+1) is far below anything a quote could notice.
 */
export function walkStep(current: bigint, anchor: bigint, draw: number, limits: WalkLimits = DEFAULT_WALK): bigint {
  const moveBps = (BigInt(draw >>> 0) % (2n * limits.stepBps + 1n)) - limits.stepBps;
  const next = current + (current * moveBps) / BPS;
  const lo = anchor - (anchor * limits.bandBps) / BPS;
  const hi = anchor + (anchor * limits.bandBps) / BPS;
  const clamped = next < lo ? lo : next > hi ? hi : next;
  return clamped > 0n ? clamped : 1n;
}
