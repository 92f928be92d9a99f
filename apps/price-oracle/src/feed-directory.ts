import { setTimeout as sleep } from 'node:timers/promises';
import { ListPriceFeedsRpc } from '@xchain/contracts';
import { Backoff, type RpcClient } from '@xchain/messaging';
import type { Logger } from '@xchain/telemetry';
import { describeError, type Feed } from './sources/source';

export interface FeedDirectoryOptions {
  refreshMs: number;
  /** First retry delay while the quote-engine does not answer; doubles up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

const CALLER = { kind: 'internal', service: 'price-oracle' } as const;

/**
 * The list of feeds to price, asked of the quote-engine (which owns the registry) at start and
 * every `refreshMs`. Until it answers (it may start after us) the call is retried with backoff;
 * a failed refresh keeps the last list. Nothing here ever throws out of the loop.
 */
export class FeedDirectory {
  private current: readonly Feed[] = [];
  private readonly abort = new AbortController();
  private loop?: Promise<void>;

  constructor(
    private readonly rpc: Pick<RpcClient, 'call'>,
    private readonly log: Logger,
    private readonly opts: FeedDirectoryOptions,
    private readonly onChange: (feeds: readonly Feed[]) => void,
  ) {}

  get feeds(): readonly Feed[] {
    return this.current;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const backoff = new Backoff({ initialMs: this.opts.minBackoffMs ?? 250, maxMs: this.opts.maxBackoffMs ?? 10_000 });
    let failing = false;
    while (!this.abort.signal.aborted) {
      let wait: number;
      try {
        const { feeds } = await this.rpc.call(ListPriceFeedsRpc, {}, { caller: CALLER });
        if (failing && this.current.length > 0) this.log.info('price feed refresh works again');
        failing = false;
        if (!sameFeeds(feeds, this.current)) {
          this.current = feeds;
          this.log.info({ feeds: feeds.length }, 'price feed list loaded');
          this.onChange(feeds);
        }
        // An empty registry is most likely one not seeded yet: ask again soon.
        if (feeds.length > 0) backoff.reset();
        wait = feeds.length > 0 ? this.opts.refreshMs : backoff.next();
      } catch (err) {
        if (!failing) {
          const msg =
            this.current.length > 0 ? 'price feed refresh failed; keeping the last list' : 'price feed list not available yet; retrying';
          this.log.warn({ err: describeError(err) }, msg);
        }
        failing = true;
        wait = backoff.next();
      }
      await sleep(wait, undefined, { signal: this.abort.signal }).catch(() => undefined);
    }
  }
}

function sameFeeds(a: readonly Feed[], b: readonly Feed[]): boolean {
  const key = (feeds: readonly Feed[]) => JSON.stringify([...feeds].sort((x, y) => x.price_id.localeCompare(y.price_id)));
  return a.length === b.length && key(a) === key(b);
}
