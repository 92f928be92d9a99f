import { Inject, Injectable, type Provider } from '@nestjs/common';
import { sqlCursorStore } from '@xchain/chain-watch';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { Clock } from '@xchain/service-kit';
import { DB } from '../db.providers';
import { CHAIN_STEPS, sqlChainSteps } from './chain-steps.repository';
import { CHAIN_CURSORS } from './deposit-watchers';
import { ORDER_PARTIES, sqlOrderParties } from './order-parties.repository';
import { SOLANA_CURSORS } from './solana-watcher';

/** A watcher's saved position (`chain_cursors`) as the replaced-chain guard reads it. */
export interface ChainPosition {
  block: bigint;
  /** The block whose hash was recorded, and that hash (lower case). */
  hashBlock: bigint | null;
  blockHash: string | null;
}

/** The watchers' positions, for the replaced-chain guard. */
@Injectable()
export class ChainCursorRepository {
  constructor(
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  position(name: string): Promise<ChainPosition | null> {
    return this.db.chainCursor.findUnique({ where: { name }, select: { block: true, hashBlock: true, blockHash: true } });
  }

  /** Records the hash of the block the position stands at, unless the position moved meanwhile. */
  async rememberHash(name: string, block: bigint, hash: string): Promise<void> {
    await this.db.chainCursor.updateMany({ where: { name, block }, data: { hashBlock: block, blockHash: hash } });
  }

  /**
   * Moves the position back to `block` and forgets its recorded hash; with `setAsideAbove`, the
   * watcher's steps above that block are set aside from the reorg re-check (`chain_replaced_at`), in
   * the same transaction. How many steps were set aside.
   */
  rewind(name: string, block: bigint, setAsideAbove?: bigint): Promise<number> {
    return this.db.$transaction(async (t) => {
      await t.chainCursor.update({ where: { name }, data: { block, hashBlock: null, blockHash: null, updatedAt: this.clock.now() } });
      if (setAsideAbove === undefined) return 0;
      const r = await t.chainStep.updateMany({
        where: { watcher: name, blockNumber: { gt: setAsideAbove }, withdrawnAt: null, chainReplacedAt: null },
        data: { chainReplacedAt: this.clock.now() },
      });
      return r.count;
    });
  }
}

/** What the watchers keep in the database: positions, published steps, order parties. */
export const chainStoreProviders: Provider[] = [
  ChainCursorRepository,
  { provide: CHAIN_CURSORS, inject: [DB], useFactory: (db: PrismaClient) => sqlCursorStore(db) },
  { provide: SOLANA_CURSORS, inject: [DB], useFactory: (db: PrismaClient) => sqlCursorStore(db) },
  { provide: CHAIN_STEPS, inject: [DB, Clock], useFactory: (db: PrismaClient, clock: Clock) => sqlChainSteps(db, clock) },
  { provide: ORDER_PARTIES, inject: [DB], useFactory: (db: PrismaClient) => sqlOrderParties(db) },
];
