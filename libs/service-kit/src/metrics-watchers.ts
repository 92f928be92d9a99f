import type { Metrics } from './metrics';

/** What a chain log watcher tells about itself (the chain-watch LogWatcher has this shape). */
export interface WatcherStatus {
  name: string;
  chainName: string;
  confirmations: number;
  progress: {
    /** The chain head the last pass saw. */
    head?: bigint;
    /** The last block fully handled. */
    read?: bigint;
    /** Unix milliseconds of the last pass that completed without an error. */
    lastPassAt?: number;
  };
}

/**
 * Gauges of every chain watcher `list()` returns, read at scrape time: head, last read block, lag
 * (head − last read; `confirmations` of it is by design), confirmations and the time of the last
 * clean pass (a watcher whose RPC is down stops updating it, however small its lag looked last).
 * Watchers that are gone (a replaced router) drop out of the output.
 */
export function watchChainWatchers(metrics: Metrics, list: () => readonly WatcherStatus[]): void {
  const labelNames = ['watcher', 'chain'] as const;
  const head = metrics.gauge({ name: 'chain_watcher_head_block', help: 'Chain head seen by the watcher’s last pass', labelNames });
  const read = metrics.gauge({ name: 'chain_watcher_read_block', help: 'Last block the watcher fully handled', labelNames });
  const lag = metrics.gauge({
    name: 'chain_watcher_lag_blocks',
    help: 'Chain head minus the last block the watcher handled (includes its confirmations)',
    labelNames,
  });
  const confirmations = metrics.gauge({
    name: 'chain_watcher_confirmations',
    help: 'Blocks the watcher waits on top of a log before handling it',
    labelNames,
  });
  const lastPass = metrics.gauge({
    name: 'chain_watcher_last_pass_timestamp_seconds',
    help: 'Unix time of the watcher’s last pass that completed without an error',
    labelNames,
  });
  const all = [head, read, lag, confirmations, lastPass];
  metrics.onScrape('chain_watchers', () => {
    for (const g of all) g.reset();
    for (const w of list()) {
      const labels = { watcher: w.name, chain: w.chainName };
      const p = w.progress;
      confirmations.set(labels, w.confirmations);
      if (p.head !== undefined) head.set(labels, Number(p.head));
      if (p.read !== undefined) read.set(labels, Number(p.read));
      if (p.head !== undefined && p.read !== undefined) lag.set(labels, Number(p.head - p.read));
      if (p.lastPassAt !== undefined) lastPass.set(labels, p.lastPassAt / 1000);
    }
  });
}
