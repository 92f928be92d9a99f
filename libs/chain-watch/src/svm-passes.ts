import type { Logger } from '@xchain/telemetry';
import type { SolanaAddressReader } from './svm-address-reader';
import type { SolanaChain } from './svm-chain';

const firstLine = (err: unknown) => (err instanceof Error ? err.message.split('\n')[0]! : String(err));

/**
 * Passes over a set of Solana address readers, one at a time, every `pollMs`. Each pass first asks
 * the cluster's genesis hash and confirmed slot (every pass: a validator reset under the same URL
 * must not keep the old positions), then lets the owner name the readers for that cluster and
 * reads each; a failure stays with its reader (or with the cluster, in `clusterNote`), never
 * stops the loop, and shows in the owner's readiness detail.
 */
export class SolanaPasses {
  /** Why the last pass could not ask the cluster; cleared by the next one that could. */
  clusterNote?: string;
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly chain: Pick<SolanaChain, 'genesisHash' | 'confirmedSlot'>,
    private readonly opts: { pollMs: number; label: string },
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  start(readersFor: (genesis: string) => Iterable<SolanaAddressReader>): void {
    this.schedule(0, readersFor);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pass;
  }

  /** One pass: the cluster, then every reader it names. */
  async readOnce(readersFor: (genesis: string) => Iterable<SolanaAddressReader>): Promise<void> {
    let genesis: string;
    let confirmedSlot: number;
    try {
      genesis = await this.chain.genesisHash();
      confirmedSlot = await this.chain.confirmedSlot();
      this.clusterNote = undefined;
    } catch (err) {
      this.clusterNote = `retrying: ${firstLine(err)}`;
      this.log.warn({ err: this.clusterNote }, `${this.opts.label}: the cluster does not answer`);
      return;
    }
    for (const reader of readersFor(genesis)) {
      if (this.stopped) return;
      try {
        await reader.readOnce({ confirmedSlot, isStopped: () => this.stopped });
      } catch (err) {
        reader.failure = firstLine(err);
        this.log.warn({ watcher: reader.name, err: reader.failure }, `${this.opts.label}: pass failed`);
      }
    }
  }

  private schedule(delayMs: number, readersFor: (genesis: string) => Iterable<SolanaAddressReader>): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.pass = this.readOnce(readersFor)
        .catch((err: unknown) => this.log.warn({ err: firstLine(err) }, `${this.opts.label}: pass failed`))
        .finally(() => this.schedule(this.opts.pollMs, readersFor));
    }, delayMs);
  }
}

/**
 * The lifecycle a Solana watcher shares with every other: its passes start with the application
 * and stop with it, and `readOnce` runs one at once. The owner sets `passes` (none while it is
 * off) and names, in `sync`, the readers to read on the cluster a pass found.
 */
export abstract class SolanaWatch {
  /** By cursor name (address and cluster). */
  protected readonly readers = new Map<string, SolanaAddressReader>();
  protected passes?: SolanaPasses;

  /** The readers to read now on the cluster of this genesis hash (a new cluster starts new positions). */
  protected abstract sync(genesis: string): SolanaAddressReader[];

  onApplicationBootstrap(): void {
    this.passes?.start((genesis) => this.sync(genesis));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.passes?.stop();
  }

  /** One pass over every reader (each failure stays with its reader). */
  async readOnce(): Promise<void> {
    await this.passes?.readOnce((genesis) => this.sync(genesis));
  }
}
