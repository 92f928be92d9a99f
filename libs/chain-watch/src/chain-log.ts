import type { Hex } from 'viem';

/** Where a log sits on its chain: enough to order it and to record it once. */
export interface ChainLog {
  txHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  /** The block's hash as the log was read: a reorg shows as another hash at the same height. */
  blockHash?: Hex;
}

export function inChainOrder(a: ChainLog, b: ChainLog): number {
  return a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1;
}

/** A log as viem returns it: pending or removed (reorged out) logs lack a place on the chain. */
interface RpcLog {
  transactionHash: Hex | null;
  logIndex: number | null;
  blockNumber: bigint | null;
  blockHash: Hex | null;
  removed: boolean;
}

/** The logs that sit in a block, each with its place, in chain order. */
export function placedLogs<T extends RpcLog, L>(logs: readonly T[], decode: (log: T, at: ChainLog) => L): L[] {
  return logs
    .filter((l) => !l.removed && l.transactionHash !== null && l.logIndex !== null && l.blockNumber !== null && l.blockHash !== null)
    .map((l) => ({ l, at: { txHash: l.transactionHash!, logIndex: l.logIndex!, blockNumber: l.blockNumber!, blockHash: l.blockHash! } }))
    .sort((a, b) => inChainOrder(a.at, b.at))
    .map(({ l, at }) => decode(l, at));
}
