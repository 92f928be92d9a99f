import type { OrderEvent } from '@xchain/contracts';

/**
 * Which fulfilment an event speaks of: chain, transaction, log index and the block it was read in.
 * A reorg that drops a fulfilment sends it again with `removed: true`; a fulfilment re-included in
 * another block comes back with a new block hash, and is a different step.
 */
export interface FulfilmentStep {
  chain: string;
  txHash: string;
  logIndex: number | null;
  blockHash: string | null;
}

/** EVM hashes compare in lower case; Solana signatures (base58) as they are. */
const norm = (h: string) => (/^0x[0-9a-fA-F]+$/.test(h) ? h.toLowerCase() : h);

export function stepOf(e: OrderEvent): FulfilmentStep {
  return {
    chain: e.chain,
    txHash: norm(e.tx_hash),
    logIndex: e.log_index ?? null,
    blockHash: e.block_hash !== undefined ? norm(e.block_hash) : null,
  };
}

/**
 * The same step: same chain and transaction, and the same log index and block where both events
 * carry them (events from before those fields existed match on what they have).
 */
export function sameStep(a: FulfilmentStep, b: FulfilmentStep): boolean {
  const agree = <T>(x: T | null, y: T | null) => x === null || y === null || x === y;
  return a.chain === b.chain && a.txHash === b.txHash && agree(a.logIndex, b.logIndex) && agree(a.blockHash, b.blockHash);
}
