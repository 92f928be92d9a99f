import { type ChainLog, type CursorStore, LogWatcher } from '@xchain/chain-watch';
import type { Logger } from '@xchain/telemetry';
import { Registry } from 'prom-client';
import { Metrics } from './metrics';
import { watchChainWatchers } from './metrics-watchers';

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** A real LogWatcher on a chain whose head and logs the test sets. */
function watcher(name: string, state: { head: number; failAt?: number }) {
  const cursors = new Map<string, bigint>();
  const store: CursorStore = {
    load: async (n) => cursors.get(n),
    save: async (n, b) => void cursors.set(n, b),
    rewind: async (n, b) => void cursors.set(n, b),
  };
  const logs: ChainLog[] = [{ txHash: `0x${'ab'.repeat(32)}`, logIndex: 0, blockNumber: 15n }];
  const source = {
    name,
    chainName: 'base',
    chain: { chainId: async () => 8453, head: async () => BigInt(state.head) },
    read: async (from: bigint, to: bigint) => logs.filter((l) => l.blockNumber >= from && l.blockNumber <= to),
    handle: async (l: ChainLog) => {
      if (state.failAt !== undefined && l.blockNumber === BigInt(state.failAt)) throw new Error('no price yet');
      return 'credited';
    },
  };
  const log = { info: () => undefined, warn: () => undefined } as unknown as Logger;
  return new LogWatcher(
    source,
    { confirmations: 2, pollMs: 1000, maxBlockRange: 100, startBlock: 0 },
    { cursors: store, expectedChainId: async () => '8453', log },
  );
}

describe('chain watcher metrics', () => {
  it('shows each watcher’s head, last read block and lag as its passes go', async () => {
    const state: { head: number; failAt?: number } = { head: 30, failAt: 15 };
    const w = watcher('funding:base:0xr', state);
    const metrics = new Metrics(new Registry());
    const list = [w];
    watchChainWatchers(metrics, () => list);
    const L = '{watcher="funding:base:0xr",chain="base"}';

    let text = await metrics.render();
    expect(sample(text, `chain_watcher_confirmations${L}`)).toBe(2);
    expect(sample(text, `chain_watcher_lag_blocks${L}`)).toBeUndefined(); // no pass yet

    // The log of block 15 cannot be handled yet: the watcher stops before it and falls behind.
    await expect(w.readOnce()).rejects.toThrow('no price yet');
    text = await metrics.render();
    expect(sample(text, `chain_watcher_head_block${L}`)).toBe(30);
    expect(sample(text, `chain_watcher_read_block${L}`)).toBe(14);
    expect(sample(text, `chain_watcher_lag_blocks${L}`)).toBe(16);
    expect(sample(text, `chain_watcher_last_pass_timestamp_seconds${L}`)).toBeUndefined();

    state.failAt = undefined;
    state.head = 40;
    const before = Date.now() / 1000;
    await w.readOnce();
    text = await metrics.render();
    expect(sample(text, `chain_watcher_read_block${L}`)).toBe(38);
    expect(sample(text, `chain_watcher_lag_blocks${L}`)).toBe(2); // just its confirmations
    expect(sample(text, `chain_watcher_last_pass_timestamp_seconds${L}`)).toBeGreaterThanOrEqual(Math.floor(before));

    list.length = 0; // replaced (a new router): its series go away
    text = await metrics.render();
    expect(text).not.toContain('funding:base:0xr');
  });
});
