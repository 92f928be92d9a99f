import type { Logger } from '@xchain/telemetry';
import type { Hex } from 'viem';
import type { ChainLog } from './chain-log';
import type { CursorStore } from './cursor-store';

export interface WatchOptions {
  /** Blocks on top of a log's block before it is handled (reorg safety). */
  confirmations: number;
  pollMs: number;
  /** Largest block range asked in one eth_getLogs (providers cap it). */
  maxBlockRange: number;
  /** First block read when there is no saved position; default: the confirmed head at first start. */
  startBlock?: number;
  /**
   * How far below the confirmed head handled steps are re-checked against the chain's block hashes
   * (a reorg deeper than the confirmation depth); default max(64, 4 × confirmations).
   */
  recheckBlocks?: number;
  /**
   * A poll that finds the head where the last pass left it skips the reorg re-check, which still
   * runs at least this often (a reorg can keep the height); default 5000.
   */
  recheckIdleMs?: number;
}

/** What a watcher needs of the chain itself (a JSON-RPC node behind it). */
export interface ChainHead {
  chainId(): Promise<number>;
  head(): Promise<bigint>;
  /** The canonical hash of a block now; without it logs are not checked against reorgs. */
  blockHash?(block: bigint): Promise<Hex>;
}

/** A step a source handled, as it remembers it: where it was read. */
export interface HandledStep {
  txHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hex;
}

/**
 * What a source remembers of the steps it handled, so that a reorg deeper than the confirmation
 * depth withdraws the steps it dropped rather than leaving them standing.
 */
export interface StepHistory {
  /** Handled, not withdrawn steps in blocks after `block`. */
  since(block: bigint): Promise<HandledStep[]>;
  /** Publishes that the step did not happen after all and forgets it (idempotent). */
  withdraw(step: HandledStep): Promise<void>;
}

/** One kind of log on one contract of one chain, and what to do with each. */
export interface LogSource<L extends ChainLog> {
  /** Names the saved position: change it (another router) and reading starts afresh. */
  name: string;
  /** Registry name of the chain, whose chain id the RPC must serve. */
  chainName: string;
  chain: ChainHead;
  read(from: bigint, to: bigint): Promise<L[]>;
  /** Must be idempotent per log: a block is handled again after a failure or a rescan. Returns an outcome to log; 'duplicate' is not logged. */
  handle(log: L): Promise<string>;
  /** When given (and the chain serves block hashes), handled steps are re-checked for deep reorgs. */
  steps?: StepHistory;
}

/** What the watcher needs of its service: where positions are kept, and which chain id a chain name means. */
export interface WatcherDeps {
  cursors: CursorStore;
  /** The registry's chain id (decimal) for a chain name; undefined when the chain is not listed. */
  expectedChainId(chainName: string): Promise<string | undefined>;
  log: Pick<Logger, 'info' | 'warn'>;
  /** When given, asked before each pass whether the chain under the saved position was replaced. */
  replaced?: ReplacedChainCheck;
}

/**
 * Notices a chain replaced under a watcher's saved position (a devnet started afresh, a reorg past
 * the confirmation depth: a real chain does neither) and moves the position back, before the pass
 * reads or re-checks anything.
 */
export interface ReplacedChainCheck {
  beforePass(name: string, chain: ChainHead, head: bigint, safeHead: bigint): Promise<void>;
}

/**
 * Reads a contract's logs block range by block range, `confirmations` behind the head, and hands
 * each to its source in chain order. The last block fully handled is saved, so a restart resumes
 * where it stopped; a log that fails (a deposit with no fresh price yet) stops the pass at its
 * block, which is read again on the next poll. Failures show in `detail`, never as a crash.
 */
export class LogWatcher<L extends ChainLog> {
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private pass?: Promise<void>;
  private verifiedChain = false;
  detail = 'starting';
  private lastHead?: bigint;
  private lastRecheckAt = 0;
  /** Where the watcher stands (for metrics: head − read is its lag); filled in by each pass. */
  readonly progress: { head?: bigint; read?: bigint; lastPassAt?: number } = {};

  constructor(
    private readonly source: LogSource<L>,
    private readonly opts: WatchOptions,
    private readonly deps: WatcherDeps,
  ) {}

  get name(): string {
    return this.source.name;
  }

  get chainName(): string {
    return this.source.chainName;
  }

  get confirmations(): number {
    return this.opts.confirmations;
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pass;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.pass = this.readOnce()
        .catch((err: unknown) => {
          const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
          this.detail = `retrying: ${message}`;
          this.deps.log.warn({ watcher: this.name, err: message }, 'chain watcher pass failed');
        })
        .finally(() => this.schedule(this.opts.pollMs));
    }, delayMs);
  }

  /** One pass: from the saved position up to the confirmed head, at most maxBlockRange blocks a call. */
  async readOnce(): Promise<void> {
    const { chain, chainName } = this.source;
    if (!this.verifiedChain) {
      const [actual, expected] = await Promise.all([chain.chainId(), this.deps.expectedChainId(chainName)]);
      if (String(actual) !== expected) {
        throw new Error(`the RPC of ${chainName} serves chain id ${actual}, but ${chainName} is ${expected ?? 'not listed'}`);
      }
      this.verifiedChain = true;
    }
    const head = await chain.head();
    this.progress.head = head;
    const safeHead = head - BigInt(this.opts.confirmations);
    await this.deps.replaced?.beforePass(this.name, chain, head, safeHead);
    // The head has not moved since the last pass: the reorg re-check (block hashes of every recent
    // step) waits, up to recheckIdleMs; the saved position is still read, so a rescan asked for by
    // deleting it starts at once.
    if (head !== this.lastHead || Date.now() - this.lastRecheckAt >= (this.opts.recheckIdleMs ?? 5000)) {
      await this.recheck(safeHead);
      this.lastRecheckAt = Date.now();
    }
    let done = await this.cursor(safeHead);
    this.progress.read = done;
    while (done < safeHead && !this.stopped) {
      const to = done + BigInt(this.opts.maxBlockRange) < safeHead ? done + BigInt(this.opts.maxBlockRange) : safeHead;
      const logs = await this.source.read(done + 1n, to);
      await this.assertCanonical(logs);
      for (const log of logs) {
        try {
          const outcome = await this.source.handle(log);
          if (outcome !== 'duplicate')
            this.deps.log.info({ watcher: this.name, tx_hash: log.txHash, log_index: log.logIndex, outcome }, 'chain log handled');
        } catch (err) {
          // Everything before this block is done; this block is read again (handled logs are no-ops).
          await this.deps.cursors.save(this.name, log.blockNumber - 1n);
          this.progress.read = log.blockNumber - 1n;
          throw err;
        }
      }
      await this.deps.cursors.save(this.name, to);
      done = to;
      this.progress.read = done;
    }
    this.detail = `read up to block ${done} (${this.opts.confirmations} confirmations)`;
    this.progress.lastPassAt = Date.now();
    this.lastHead = head;
  }

  /**
   * The logs just read must sit in the blocks the chain holds now: a log of a block that a reorg
   * replaced between the read and now is not handled (the pass fails and reads the range again).
   */
  private async assertCanonical(logs: readonly L[]): Promise<void> {
    const blockHash = this.source.chain.blockHash?.bind(this.source.chain);
    if (!blockHash || !this.source.steps) return;
    const wanted = new Map<bigint, Hex | undefined>();
    for (const l of logs) if (l.blockHash) wanted.set(l.blockNumber, l.blockHash);
    for (const [block, hash] of wanted) {
      const now = await blockHash(block);
      if (now.toLowerCase() !== hash!.toLowerCase())
        throw new Error(`block ${block} was replaced while it was read (reorg): reading it again`);
    }
  }

  /**
   * A reorg deeper than the confirmation depth: every handled step of the last `recheckBlocks`
   * blocks is compared with the block hash the chain holds now at its height. A step whose block
   * is gone is withdrawn, and reading resumes before it, so whatever the new blocks hold (the same
   * transaction again, or nothing) is read afresh.
   */
  private async recheck(safeHead: bigint): Promise<void> {
    const { steps, chain } = this.source;
    const blockHash = chain.blockHash?.bind(chain);
    if (!steps || !blockHash || safeHead < 0n) return;
    const window = BigInt(this.opts.recheckBlocks ?? Math.max(64, 4 * this.opts.confirmations));
    const handled = await steps.since(safeHead > window ? safeHead - window : -1n);
    const canonical = new Map<bigint, Hex>();
    let earliest: bigint | undefined;
    for (const step of handled) {
      if (step.blockNumber > safeHead + BigInt(this.opts.confirmations)) continue; // not yet: the head moved back
      if (!canonical.has(step.blockNumber)) canonical.set(step.blockNumber, (await blockHash(step.blockNumber)).toLowerCase() as Hex);
      if (canonical.get(step.blockNumber) === step.blockHash.toLowerCase()) continue;
      await steps.withdraw(step);
      this.deps.log.warn(
        { watcher: this.name, tx_hash: step.txHash, log_index: step.logIndex, block: step.blockNumber.toString() },
        'chain step withdrawn: a reorg replaced its block',
      );
      if (earliest === undefined || step.blockNumber < earliest) earliest = step.blockNumber;
    }
    if (earliest !== undefined) await this.deps.cursors.rewind(this.name, earliest - 1n);
  }

  private async cursor(safeHead: bigint): Promise<bigint> {
    const saved = await this.deps.cursors.load(this.name);
    if (saved !== undefined) return saved;
    const wanted = this.opts.startBlock !== undefined ? BigInt(this.opts.startBlock) - 1n : safeHead;
    // A chain younger than the confirmation depth has no confirmed head yet: start from its genesis
    // (-1: nothing read), never from a negative block that eth_getLogs would refuse forever.
    const start = wanted < -1n ? -1n : wanted;
    await this.deps.cursors.save(this.name, start);
    return start;
  }
}
