import type { CursorStore } from './cursor-store';
import type { SignatureEntry, SolanaChain } from './svm-chain';

/** Largest page of getSignaturesForAddress (the RPC's own maximum). */
export const SIGNATURE_PAGE = 1000;

/**
 * Reads the confirmed transactions naming one address, oldest first, from its saved position on.
 * The position is a slot (the cursor's block column): every transaction of a slot up to it has
 * been handled. That needs no signature: a confirmed slot is complete, so a listing made after a
 * slot was confirmed holds all of that slot's transactions for the address.
 */
export class SolanaAddressReader {
  /** The slot read up to by the last pass that completed; undefined before the first one. */
  readUpTo?: bigint;
  /** Why the last pass failed; cleared by the next one that completes. */
  failure?: string;
  /** For metrics, as the EVM watchers report it: the confirmed slot and the slot read up to by the last pass. */
  readonly progress: { head?: bigint; read?: bigint; lastPassAt?: number } = {};

  constructor(
    readonly name: string,
    readonly address: string,
    private readonly chain: Pick<SolanaChain, 'signaturesForAddress' | 'confirmedSlot'>,
    private readonly cursors: Pick<CursorStore, 'load' | 'save'>,
    private readonly handle: (entry: SignatureEntry) => Promise<void>,
    private readonly startSlot?: number,
    private readonly pageSize = SIGNATURE_PAGE,
  ) {}

  /**
   * One pass: lists back to the position, handles what is newer in chain order, saves the new
   * position. `confirmedSlot`, when given, must have been read before this call (one getSlot can
   * serve every account of a pass).
   */
  async readOnce(opts: { confirmedSlot?: number; isStopped?: () => boolean } = {}): Promise<void> {
    const isStopped = opts.isStopped ?? (() => false);
    const confirmed = BigInt(opts.confirmedSlot ?? (await this.chain.confirmedSlot()));
    const done = await this.position(confirmed);
    const fresh: SignatureEntry[] = [];
    for (let before: string | undefined; ;) {
      const page = await this.chain.signaturesForAddress(this.address, { limit: this.pageSize, ...(before ? { before } : {}) });
      const newer = page.filter((e) => BigInt(e.slot) > done);
      fresh.push(...newer);
      if (newer.length < page.length || page.length < this.pageSize) break;
      before = page[page.length - 1]!.signature;
    }
    fresh.reverse();
    let last = done;
    for (const entry of fresh) {
      if (isStopped()) return;
      const slot = BigInt(entry.slot);
      // A new slot: every transaction of the slots before it is handled.
      if (slot > last && last > done) await this.cursors.save(this.name, last);
      try {
        await this.handle(entry);
      } catch (err) {
        await this.cursors.save(this.name, slot - 1n);
        throw err;
      }
      last = slot;
    }
    // The listing was made after `confirmed` was: its slots up to there are complete too.
    const upTo = last > confirmed ? last : confirmed;
    await this.cursors.save(this.name, upTo);
    this.readUpTo = upTo;
    this.failure = undefined;
    Object.assign(this.progress, { head: confirmed, read: upTo, lastPassAt: Date.now() });
  }

  private async position(confirmed: bigint): Promise<bigint> {
    const saved = await this.cursors.load(this.name);
    if (saved !== undefined) return saved;
    const start = this.startSlot !== undefined ? BigInt(this.startSlot) - 1n : confirmed;
    await this.cursors.save(this.name, start);
    return start;
  }
}
