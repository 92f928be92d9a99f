import type { Logger } from '@xchain/telemetry';
import { type Hex, pad } from 'viem';
import type { ChainLog } from './chain-log';
import type { CursorStore } from './cursor-store';
import { type ChainHead, type HandledStep, LogWatcher, type StepHistory, type WatchOptions } from './log-watcher';

const logAt = (block: number, logIndex = 0): ChainLog => ({
  txHash: pad(`0x${block.toString(16)}${logIndex}`) as Hex,
  logIndex,
  blockNumber: BigInt(block),
});

/** A chain of `head` blocks holding `logs`, recording every eth_getLogs range asked. */
function fakeChain(head: number, logs: ChainLog[], chainId = 8453) {
  const ranges: [number, number][] = [];
  const chain: ChainHead = { chainId: async () => chainId, head: async () => BigInt(head) };
  const read = async (from: bigint, to: bigint) => {
    ranges.push([Number(from), Number(to)]);
    return logs.filter((l) => l.blockNumber >= from && l.blockNumber <= to);
  };
  return { chain, read, ranges, setHead: (h: number) => (head = h) };
}

/** Cursors in a Map, forward only (GREATEST semantics, as the SQL store). */
function fakeCursors() {
  const cursors = new Map<string, bigint>();
  const store: CursorStore = {
    load: async (name) => cursors.get(name),
    save: async (name, block) => {
      const was = cursors.get(name);
      cursors.set(name, was !== undefined && was > block ? was : block);
    },
    rewind: async (name, block) => {
      const was = cursors.get(name);
      if (was !== undefined && was > block) cursors.set(name, block);
    },
  };
  return { store, cursor: () => [...cursors.values()][0] };
}

function watcher(fake: ReturnType<typeof fakeChain>, opts: Partial<WatchOptions>, handle: (log: ChainLog) => Promise<string>) {
  const { store, cursor } = fakeCursors();
  const log = { info: () => undefined, warn: () => undefined } as unknown as Logger;
  const expectedChainId = async (name: string) => (name === 'base' ? '8453' : undefined);
  const source = { name: 'funding:base:0xrouter', chainName: 'base', chain: fake.chain, read: fake.read, handle };
  const w = new LogWatcher(
    source,
    { confirmations: 2, pollMs: 1000, maxBlockRange: 10, ...opts },
    { cursors: store, expectedChainId, log },
  );
  return { w, cursor };
}

describe('LogWatcher', () => {
  it('reads up to the confirmed head in bounded ranges, in chain order, and resumes from where it stopped', async () => {
    const logs = [logAt(3), logAt(12, 0), logAt(12, 1), logAt(25), logAt(29)];
    const fake = fakeChain(30, logs);
    const { ranges, setHead } = fake;
    const seen: ChainLog[] = [];
    const { w, cursor } = watcher(fake, { startBlock: 0 }, async (l) => (seen.push(l), 'credited'));
    await w.readOnce();
    // head 30, 2 confirmations: blocks 0..28 in ranges of 10; block 29 is not yet deep enough
    expect(ranges).toEqual([
      [0, 9],
      [10, 19],
      [20, 28],
    ]);
    expect(seen.map((l) => [Number(l.blockNumber), l.logIndex])).toEqual([
      [3, 0],
      [12, 0],
      [12, 1],
      [25, 0],
    ]);
    expect(cursor()).toBe(28n);
    expect(w.detail).toBe('read up to block 28 (2 confirmations)');
    setHead(31);
    await w.readOnce();
    expect(ranges.at(-1)).toEqual([29, 29]);
    expect(seen.at(-1)!.blockNumber).toBe(29n);
  });

  it('stops at a log that cannot be handled yet and retries its block on the next pass', async () => {
    const logs = [logAt(5), logAt(7, 0), logAt(7, 1), logAt(9)];
    const fake = fakeChain(20, logs);
    let priceBack = false;
    const offered: string[] = [];
    const { w, cursor } = watcher(fake, { startBlock: 0, maxBlockRange: 100 }, async (l) => {
      offered.push(`${l.blockNumber}:${l.logIndex}`);
      if (l.blockNumber === 7n && l.logIndex === 1 && !priceBack) throw new Error('no price for ETH');
      return 'credited';
    });
    await expect(w.readOnce()).rejects.toThrow('no price for ETH');
    expect(cursor()).toBe(6n); // everything before block 7 is done
    priceBack = true;
    await w.readOnce();
    // block 7 is offered again whole (the handler skips what it already recorded)
    expect(offered).toEqual(['5:0', '7:0', '7:1', '7:0', '7:1', '9:0']);
    expect(cursor()).toBe(18n);
  });

  it('starts at the confirmed head when no start block is configured', async () => {
    const fake = fakeChain(1000, [logAt(10)]);
    const { ranges } = fake;
    const seen: ChainLog[] = [];
    const { w, cursor } = watcher(fake, {}, async (l) => (seen.push(l), 'credited'));
    await w.readOnce();
    expect(ranges).toEqual([]);
    expect(seen).toEqual([]);
    expect(cursor()).toBe(998n);
  });

  it('on a chain younger than the confirmation depth, starts from its first block once it is deep enough', async () => {
    const fake = fakeChain(1, [logAt(0), logAt(3)]);
    const seen: ChainLog[] = [];
    const { w, cursor } = watcher(fake, {}, async (l) => (seen.push(l), 'credited'));
    await w.readOnce();
    expect(cursor()).toBe(-1n); // nothing read, nothing confirmed yet
    expect(fake.ranges).toEqual([]);
    fake.setHead(5);
    await w.readOnce();
    expect(fake.ranges).toEqual([[0, 3]]);
    expect(seen.map((l) => Number(l.blockNumber))).toEqual([0, 3]);
  });

  it('reads nothing from an RPC that serves another chain', async () => {
    const fake = fakeChain(100, [logAt(10)], 1);
    const { ranges } = fake;
    const { w, cursor } = watcher(fake, { startBlock: 0 }, async () => 'credited');
    await expect(w.readOnce()).rejects.toThrow('the RPC of base serves chain id 1, but base is 8453');
    expect(ranges).toEqual([]);
    expect(cursor()).toBeUndefined();
  });

  it('reads nothing for a chain the registry does not list', async () => {
    const fake = fakeChain(100, [logAt(10)]);
    const { store } = fakeCursors();
    const log = { info: () => undefined, warn: () => undefined } as unknown as Logger;
    const source = { name: 'x', chainName: 'base', chain: fake.chain, read: fake.read, handle: async () => 'ok' };
    const w = new LogWatcher(
      source,
      { confirmations: 0, pollMs: 1000, maxBlockRange: 10, startBlock: 0 },
      { cursors: store, expectedChainId: async () => undefined, log },
    );
    await expect(w.readOnce()).rejects.toThrow('the RPC of base serves chain id 8453, but base is not listed');
    expect(fake.ranges).toEqual([]);
  });

  describe('reorgs', () => {
    /**
     * A chain whose blocks each have a hash of the form <block>-<fork>: a reorg from block N bumps
     * the fork of every block from N on, and moves or drops the logs there.
     */
    function forkingChain(head: number) {
      const fork = new Map<number, number>();
      const hashOf = (b: number) => pad(`0x${b.toString(16)}0${(fork.get(b) ?? 0).toString(16)}`) as Hex;
      let logs: { block: number; logIndex: number; tx: string }[] = [];
      const chain: ChainHead = { chainId: async () => 8453, head: async () => BigInt(head), blockHash: async (b) => hashOf(Number(b)) };
      const read = async (from: bigint, to: bigint): Promise<ChainLog[]> =>
        logs
          .filter((l) => l.block >= Number(from) && l.block <= Number(to))
          .map((l) => ({ txHash: pad(l.tx as Hex), logIndex: l.logIndex, blockNumber: BigInt(l.block), blockHash: hashOf(l.block) }));
      return {
        chain,
        read,
        setLogs: (l: typeof logs) => (logs = l),
        reorgFrom: (b: number) => {
          for (let i = b; i <= head + 100; i++) fork.set(i, (fork.get(i) ?? 0) + 1);
        },
        setHead: (h: number) => (head = h),
      };
    }

    function historyWatcher(fake: ReturnType<typeof forkingChain>, confirmations = 2, onRead?: () => void) {
      const { store, cursor } = fakeCursors();
      const handled = new Map<string, HandledStep>();
      const published: string[] = [];
      const steps: StepHistory = {
        since: async (b) => [...handled.values()].filter((s) => s.blockNumber > b),
        withdraw: async (s) => {
          published.push(`withdrawn ${s.txHash.slice(-2)}@${s.blockNumber}`);
          handled.delete(`${s.txHash}:${s.logIndex}:${s.blockHash}`);
        },
      };
      const source = {
        name: 'deposits:base:0xrouter',
        chainName: 'base',
        chain: fake.chain,
        read: async (from: bigint, to: bigint) => {
          const logs = await fake.read(from, to);
          onRead?.();
          return logs;
        },
        handle: async (l: ChainLog) => {
          const key = `${l.txHash}:${l.logIndex}:${l.blockHash}`;
          if (handled.has(key)) return 'duplicate';
          handled.set(key, { txHash: l.txHash, logIndex: l.logIndex, blockNumber: l.blockNumber, blockHash: l.blockHash! });
          published.push(`step ${l.txHash.slice(-2)}@${l.blockNumber}`);
          return 'published';
        },
        steps,
      };
      const log = { info: () => undefined, warn: () => undefined } as unknown as Logger;
      const w = new LogWatcher(
        source,
        { confirmations, pollMs: 1000, maxBlockRange: 100, startBlock: 0, recheckIdleMs: 0 },
        { cursors: store, expectedChainId: async () => '8453', log },
      );
      return { w, published, cursor };
    }

    it('withdraws a step whose block a deep reorg replaced, and publishes the step again where the new chain holds it', async () => {
      const fake = forkingChain(20);
      fake.setLogs([
        { block: 10, logIndex: 0, tx: '0xa1' },
        { block: 12, logIndex: 0, tx: '0xb2' },
      ]);
      const { w, published, cursor } = historyWatcher(fake);
      await w.readOnce();
      expect(published).toEqual(['step a1@10', 'step b2@12']);
      expect(cursor()).toBe(18n);
      // A reorg from block 11: tx b2 moves to block 14, a1 stays where it was.
      fake.reorgFrom(11);
      fake.setLogs([
        { block: 10, logIndex: 0, tx: '0xa1' },
        { block: 14, logIndex: 0, tx: '0xb2' },
      ]);
      await w.readOnce();
      expect(published).toEqual(['step a1@10', 'step b2@12', 'withdrawn b2@12', 'step b2@14']);
      expect(cursor()).toBe(18n);
      // Nothing changes on the next pass.
      await w.readOnce();
      expect(published).toHaveLength(4);
    });

    it('withdraws a step the new chain does not hold at all', async () => {
      const fake = forkingChain(20);
      fake.setLogs([{ block: 15, logIndex: 3, tx: '0xc3' }]);
      const { w, published } = historyWatcher(fake);
      await w.readOnce();
      fake.reorgFrom(13);
      fake.setLogs([]);
      await w.readOnce();
      expect(published).toEqual(['step c3@15', 'withdrawn c3@15']);
    });

    it('never handles a log of a block replaced while it was being read', async () => {
      const fake = forkingChain(20);
      fake.setLogs([{ block: 16, logIndex: 0, tx: '0xd4' }]);
      let reorgOnRead = true;
      const { w, published, cursor } = historyWatcher(fake, 2, () => {
        if (reorgOnRead) fake.reorgFrom(16); // the node switches forks between eth_getLogs and our hash check
        reorgOnRead = false;
      });
      await expect(w.readOnce()).rejects.toThrow('block 16 was replaced while it was read');
      expect(published).toEqual([]);
      expect(cursor()).toBe(-1n);
      await w.readOnce(); // read again: the log now carries the new block's hash
      expect(published).toEqual(['step d4@16']);
    });

    it('skips the reorg re-check while the head stays, yet runs it at least every recheckIdleMs', async () => {
      const fake = forkingChain(20);
      fake.setLogs([{ block: 15, logIndex: 0, tx: '0xe5' }]);
      let reads = 0;
      const { store } = fakeCursors();
      const withdrawn: string[] = [];
      const handled: HandledStep[] = [];
      const source = {
        name: 'deposits:base:0xrouter',
        chainName: 'base',
        chain: fake.chain,
        read: async (from: bigint, to: bigint) => (reads++, fake.read(from, to)),
        handle: async (l: ChainLog) => (
          handled.push({ txHash: l.txHash, logIndex: l.logIndex, blockNumber: l.blockNumber, blockHash: l.blockHash! }),
          'published'
        ),
        steps: { since: async () => handled, withdraw: async (s: HandledStep) => void withdrawn.push(s.txHash) },
      };
      const log = { info: () => undefined, warn: () => undefined } as unknown as Logger;
      const w = new LogWatcher(
        source,
        { confirmations: 2, pollMs: 1000, maxBlockRange: 100, startBlock: 0, recheckIdleMs: 50 },
        { cursors: store, expectedChainId: async () => '8453', log },
      );
      await w.readOnce();
      expect(reads).toBe(1);
      fake.reorgFrom(14); // same height, another fork
      await w.readOnce(); // too soon: skipped
      expect(withdrawn).toEqual([]);
      await new Promise((r) => setTimeout(r, 60));
      await w.readOnce();
      expect(withdrawn).toHaveLength(1);
    });
  });
});
