import type { ChainHead, ReplacedChainCheck } from '@xchain/chain-watch';
import type { Logger } from '@xchain/telemetry';
import type { ChainCursorRepository } from './chain-cursor.repository';

/**
 * A deposit watcher's guard against a chain replaced under its saved position (a devnet started
 * afresh while our database kept its positions, or a reorg past the confirmation depth; a real
 * chain does neither). Before each pass it compares what the position remembers with the chain:
 * - the position is above the chain's head: the chain that was read is gone (a fresh chain is
 *   younger than what we read). The steps read from it stay as they were (their orders keep what
 *   they recorded) and are set aside from the reorg re-check (`chain_replaced_at`), which would
 *   otherwise withdraw each as the new chain grows past its height;
 * - the block the position last recorded (`hash_block`) has another hash now: the chain's history
 *   changed below the position (a reorg past the depth, or a replaced chain grown past it). Steps
 *   are left to the re-check, which withdraws those whose blocks are gone, as for any deep reorg.
 * Either way the position moves back to `recheck` blocks before min(position, confirmed head) —
 * the new chain's genesis when it is young, as a devnet is — so every deposit from there on is read
 * (a step read again in the same block publishes nothing new). One warning.
 * Otherwise, when the position moved, it records the hash of its block for the next passes.
 */
export class ReplacedChainGuard implements ReplacedChainCheck {
  constructor(
    private readonly cursors: Pick<ChainCursorRepository, 'position' | 'rememberHash' | 'rewind'>,
    private readonly log: Pick<Logger, 'warn'>,
    /** How far below the replacement point reading starts again; default max(64, 4 × the watcher's depth), as the re-check. */
    private readonly recheckBlocks?: number,
  ) {}

  async beforePass(name: string, chain: ChainHead, head: bigint, safeHead: bigint): Promise<void> {
    const row = await this.cursors.position(name);
    if (!row) return;
    const blockHash = chain.blockHash?.bind(chain);
    let reason: string | undefined;
    const gone = row.block > head;
    if (gone) reason = `its position (block ${row.block}) is above the chain's head (${head})`;
    else if (blockHash && row.hashBlock !== null && row.blockHash && row.hashBlock <= head) {
      const now = (await blockHash(row.hashBlock)).toLowerCase();
      if (now !== row.blockHash) reason = `block ${row.hashBlock} has another hash (${now}, read as ${row.blockHash})`;
    }
    if (!reason) {
      if (blockHash && row.block >= 0n && row.block !== row.hashBlock) {
        const hash = (await blockHash(row.block)).toLowerCase();
        await this.cursors.rememberHash(name, row.block, hash);
      }
      return;
    }
    const window = BigInt(this.recheckBlocks ?? Math.max(64, 4 * Number(head - safeHead)));
    const from = (row.block < safeHead ? row.block : safeHead) - window;
    const to = from < -1n ? -1n : from;
    const setAside = await this.cursors.rewind(name, to < row.block ? to : row.block, gone ? to : undefined);
    this.log.warn(
      { watcher: name, head: head.toString(), was: row.block.toString(), now: to.toString(), steps_set_aside: setAside, why: reason },
      'chain replaced under the watcher (a devnet started afresh or a reorg past the depth): reading again from the new chain',
    );
  }
}
