import type { Clock, Metrics } from '@xchain/service-kit';

/** What the lane metrics read of one lane's BullMQ queue. */
export interface LaneQueue {
  chain: string;
  wallet: string;
  queue: {
    getJobCounts(...types: string[]): Promise<Record<string, number>>;
    getWaiting(start?: number, end?: number): Promise<{ timestamp: number }[]>;
  };
}

const STATES = ['waiting', 'active', 'delayed', 'prioritized'] as const;

/** Longest a scrape waits for Redis to count the lanes; past it the scrape goes on without them. */
export const LANE_COLLECT_DEADLINE_MS = 1000;

/**
 * Per lane (chain × hot wallet), read from Redis at scrape time under a deadline: jobs by state
 * and the age of the oldest waiting job. A lane whose oldest job keeps ageing is not sending.
 */
export function watchLanes(metrics: Metrics, lanes: () => readonly LaneQueue[], clock: Clock): void {
  const jobs = metrics.gauge({
    name: 'relay_queue_jobs',
    help: 'Relay jobs in a lane’s queue, by state',
    labelNames: ['chain', 'wallet', 'state'],
  });
  const oldest = metrics.gauge({
    name: 'relay_queue_oldest_job_age_seconds',
    help: 'Age of the oldest job waiting in a lane (0 when none waits)',
    labelNames: ['chain', 'wallet'],
  });
  metrics.onScrape(
    'relay_lanes',
    async () => {
      const read = await Promise.all(
        lanes().map(async (l) => {
          const [counts, [first]] = await Promise.all([l.queue.getJobCounts(...STATES), l.queue.getWaiting(0, 0)]);
          return { lane: { chain: l.chain, wallet: l.wallet }, counts, oldestAt: first?.timestamp };
        }),
      );
      // Everything is read before anything is set: a scrape never shows half of the lanes.
      jobs.reset();
      oldest.reset();
      for (const { lane, counts, oldestAt } of read) {
        for (const state of STATES) jobs.set({ ...lane, state }, counts[state] ?? 0);
        oldest.set(lane, oldestAt === undefined ? 0 : Math.max(0, (clock.nowMs() - oldestAt) / 1000));
      }
    },
    LANE_COLLECT_DEADLINE_MS,
  );
}

/**
 * Relayer wallet balances, set by whatever already reads them (the `chains` readiness check, which
 * Kubernetes probes every few seconds): scraping never adds an RPC call. The floor is exported
 * beside each balance so an alert compares the two.
 */
export function walletBalanceGauges(
  metrics: Metrics,
  clock: Clock,
): (chain: string, wallet: string, balanceWei: bigint, floorWei: bigint) => void {
  const labelNames = ['chain', 'wallet'] as const;
  const balance = metrics.gauge({
    name: 'relayer_wallet_balance_wei',
    help: 'Native balance of a relayer hot wallet, in base units (as last read by the readiness check)',
    labelNames,
  });
  const floor = metrics.gauge({
    name: 'relayer_wallet_floor_wei',
    help: 'Balance below which the wallet fails readiness (RELAY_WALLET_FLOOR_WEI / RELAY_WALLET_FLOORS)',
    labelNames,
  });
  const readAt = metrics.gauge({
    name: 'relayer_wallet_balance_read_timestamp_seconds',
    help: 'Unix time the wallet balance was last read',
    labelNames,
  });
  return (chain, wallet, balanceWei, floorWei) => {
    const labels = { chain, wallet: wallet.toLowerCase() };
    // A gauge is a float: exact enough for an operator's view and an alert; never used for money.
    balance.set(labels, Number(balanceWei));
    floor.set(labels, Number(floorWei));
    readAt.set(labels, clock.nowMs() / 1000);
  };
}

/**
 * The Solana fee payer's balance, set by the `solana` readiness check that reads it, beside its
 * floor (SOLANA_FEE_PAYER_FLOOR_LAMPORTS): what `/readyz` no longer shows (it names no account).
 */
export function feePayerBalanceGauges(
  metrics: Metrics,
  clock: Clock,
): (feePayer: string, balanceLamports: bigint, floorLamports: bigint) => void {
  const labelNames = ['fee_payer'] as const;
  const balance = metrics.gauge({
    name: 'relayer_solana_fee_payer_balance_lamports',
    help: 'Balance of the Solana fee payer of gasless orders, in lamports (as last read by the readiness check)',
    labelNames,
  });
  const floor = metrics.gauge({
    name: 'relayer_solana_fee_payer_floor_lamports',
    help: 'Balance below which the fee payer fails readiness (SOLANA_FEE_PAYER_FLOOR_LAMPORTS)',
    labelNames,
  });
  const readAt = metrics.gauge({
    name: 'relayer_solana_fee_payer_balance_read_timestamp_seconds',
    help: 'Unix time the fee payer balance was last read',
    labelNames,
  });
  return (feePayer, balanceLamports, floorLamports) => {
    const labels = { fee_payer: feePayer };
    balance.set(labels, Number(balanceLamports));
    floor.set(labels, Number(floorLamports));
    readAt.set(labels, clock.nowMs() / 1000);
  };
}
