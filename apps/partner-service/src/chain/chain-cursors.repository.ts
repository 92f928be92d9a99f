import { Inject, Injectable } from '@nestjs/common';
import { type CursorStore, sqlCursorStore } from '@xchain/chain-watch';
import type { PrismaClient } from '@xchain/partner-service-db';
import { DB } from '../db.providers';

/** Where each chain watcher (EVM logs, Solana voucher programs) saved its position: the `chain_cursors` table. */
@Injectable()
export class ChainCursorsRepository implements CursorStore {
  private readonly store: CursorStore;

  constructor(@Inject(DB) db: PrismaClient) {
    this.store = sqlCursorStore(db);
  }

  load(name: string): Promise<bigint | undefined> {
    return this.store.load(name);
  }

  save(name: string, block: bigint): Promise<void> {
    return this.store.save(name, block);
  }

  rewind(name: string, block: bigint): Promise<void> {
    return this.store.rewind(name, block);
  }
}
