/** Nearest-rank percentile of sorted integers: the smallest sample with at least p% at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new Error('no samples');
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export interface EtaEstimate {
  /** Seconds from deposit to fulfilment. */
  secs: bigint;
  /** Number of recent orders behind the figure; 0 when it is the chain's configured default. */
  samples: number;
  p90Secs?: bigint;
}

/**
 * The estimate a quote shows: the median over recent orders on the same chain pair and route type
 * once there are at least `minSamples`, else the destination chain's configured default, else none.
 */
export function estimateEta(
  samples: readonly number[] | undefined,
  minSamples: number,
  fallback: bigint | undefined,
): EtaEstimate | undefined {
  if (samples && samples.length >= minSamples && samples.length > 0) {
    const sorted = [...samples].sort((a, b) => a - b);
    return { secs: BigInt(percentile(sorted, 50)), samples: sorted.length, p90Secs: BigInt(percentile(sorted, 90)) };
  }
  return fallback === undefined ? undefined : { secs: fallback, samples: 0 };
}
