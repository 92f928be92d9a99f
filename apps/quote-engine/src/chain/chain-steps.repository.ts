import type { HandledStep } from '@xchain/chain-watch';
import type { OrderEvent } from '@xchain/contracts';
import type { PrismaClient } from '@xchain/quote-engine-db';
import type { Hex } from 'viem';
import { type Clock, token } from '@xchain/service-kit';

/** A step a watcher published, with the event it published. */
export interface PublishedStep extends HandledStep {
  event: OrderEvent;
}

/**
 * Every step the order watchers published (`chain_steps`), kept so that a reorg deeper than the
 * confirmation depth can withdraw what it dropped. Keyed by watcher, transaction, log and block
 * hash: the same transaction mined again in another block is another step.
 */
export interface ChainStepStore {
  record(watcher: string, step: PublishedStep): Promise<void>;
  /** Not withdrawn steps of a watcher in blocks after `block` (not those of a chain since replaced). */
  since(watcher: string, block: bigint): Promise<PublishedStep[]>;
  markWithdrawn(watcher: string, step: HandledStep): Promise<void>;
}

export const CHAIN_STEPS = token<ChainStepStore>('CHAIN_STEPS');

export function sqlChainSteps(db: PrismaClient, clock: Clock): ChainStepStore {
  return {
    async record(watcher, s) {
      await db.chainStep.createMany({
        data: [
          {
            watcher,
            txHash: s.txHash,
            logIndex: s.logIndex,
            blockHash: s.blockHash.toLowerCase(),
            blockNumber: s.blockNumber,
            event: s.event,
          },
        ],
        skipDuplicates: true,
      });
    },
    async since(watcher, block) {
      const rows = await db.chainStep.findMany({
        where: { watcher, blockNumber: { gt: block }, withdrawnAt: null, chainReplacedAt: null },
        orderBy: [{ blockNumber: 'asc' }, { logIndex: 'asc' }],
      });
      return rows.map((r) => ({
        txHash: r.txHash as Hex,
        logIndex: r.logIndex,
        blockNumber: r.blockNumber,
        blockHash: r.blockHash as Hex,
        event: r.event as OrderEvent,
      }));
    },
    async markWithdrawn(watcher, s) {
      await db.chainStep.updateMany({
        where: { watcher, txHash: s.txHash, logIndex: s.logIndex, blockHash: s.blockHash.toLowerCase(), withdrawnAt: null },
        data: { withdrawnAt: clock.now() },
      });
    },
  };
}
