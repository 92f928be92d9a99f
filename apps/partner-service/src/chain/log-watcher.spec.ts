import { RpcError } from '@xchain/contracts';
import type { PrismaClient } from '@xchain/partner-service-db';
import type { Logger } from '@xchain/telemetry';
import { type Address, type Hex, pad, zeroAddress } from 'viem';
import type { RegistryClient } from '../registry-client';
import type { EvmChain, FundedLog } from './evm-chain';
import { LogWatcher, type WatchOptions } from './log-watcher';

const logAt = (block: number, logIndex = 0): FundedLog => ({
  txHash: pad(`0x${block.toString(16)}${logIndex}`) as Hex,
  logIndex,
  blockNumber: BigInt(block),
  fundingId: pad('0x01'),
  token: zeroAddress,
  payer: zeroAddress as Address,
  amount: 1n,
});

/** A chain of `head` blocks holding `logs`, recording every eth_getLogs range asked. */
function fakeChain(head: number, logs: FundedLog[], chainId = 8453) {
  const ranges: [number, number][] = [];
  const chain = { chainId: async () => chainId, head: async () => BigInt(head) } as unknown as EvmChain;
  const read = async (from: bigint, to: bigint) => {
    ranges.push([Number(from), Number(to)]);
    return logs.filter((l) => l.blockNumber >= from && l.blockNumber <= to);
  };
  return { chain, read, ranges, setHead: (h: number) => (head = h) };
}

/** The two cursor queries the watcher makes, over a Map (GREATEST semantics as in SQL). */
function fakeDb() {
  const cursors = new Map<string, bigint>();
  const db = {
    chainCursor: { findUnique: async ({ where }: { where: { name: string } }) => (cursors.has(where.name) ? { block: cursors.get(where.name)! } : null) },
    $executeRaw: async (_sql: TemplateStringsArray, name: string, block: bigint) => {
      const was = cursors.get(name);
      cursors.set(name, was !== undefined && was > block ? was : block);
      return 1;
    },
  };
  return { db: db as unknown as PrismaClient, cursor: () => [...cursors.values()][0] };
}

function watcher(fake: ReturnType<typeof fakeChain>, opts: Partial<WatchOptions>, handle: (log: FundedLog) => Promise<string>) {
  const { db, cursor } = fakeDb();
  const registry = { chain: async (name: string) => (name === 'base' ? { chain_id: '8453' } : undefined) } as unknown as RegistryClient;
  const log = { info: () => undefined, warn: () => undefined } as unknown as Logger;
  const source = { name: 'funding:base:0xrouter', chainName: 'base', chain: fake.chain, read: fake.read, handle };
  const w = new LogWatcher(source, { confirmations: 2, pollMs: 1000, maxBlockRange: 10, ...opts }, db, registry, log);
  return { w, cursor };
}

describe('LogWatcher', () => {
  it('reads up to the confirmed head in bounded ranges, in chain order, and resumes from where it stopped', async () => {
    const logs = [logAt(3), logAt(12, 0), logAt(12, 1), logAt(25), logAt(29)];
    const fake = fakeChain(30, logs);
    const { ranges, setHead } = fake;
    const seen: FundedLog[] = [];
    const { w, cursor } = watcher(fake, { startBlock: 0 }, async (l) => (seen.push(l), 'credited'));
    await w.readOnce();
    // head 30, 2 confirmations: blocks 0..28 in ranges of 10; block 29 is not yet deep enough
    expect(ranges).toEqual([[0, 9], [10, 19], [20, 28]]);
    expect(seen.map((l) => [Number(l.blockNumber), l.logIndex])).toEqual([[3, 0], [12, 0], [12, 1], [25, 0]]);
    expect(cursor()).toBe(28n);
    expect(w.detail).toBe('read up to block 28 (2 confirmations)');
    setHead(31);
    await w.readOnce();
    expect(ranges.at(-1)).toEqual([29, 29]);
    expect(seen.at(-1)!.blockNumber).toBe(29n);
  });

  it('stops at a deposit that cannot be valued yet and retries its block on the next pass', async () => {
    const logs = [logAt(5), logAt(7, 0), logAt(7, 1), logAt(9)];
    const fake = fakeChain(20, logs);
    let priceBack = false;
    const offered: string[] = [];
    const { w, cursor } = watcher(fake, { startBlock: 0, maxBlockRange: 100 }, async (l) => {
      offered.push(`${l.blockNumber}:${l.logIndex}`);
      if (l.blockNumber === 7n && l.logIndex === 1 && !priceBack) throw RpcError.unavailable('no price for ETH', 'STALE_PRICE');
      return 'credited';
    });
    await expect(w.readOnce()).rejects.toThrow('no price for ETH');
    expect(cursor()).toBe(6n); // everything before block 7 is done
    priceBack = true;
    await w.readOnce();
    // block 7 is offered again whole (the deposits service skips what it already recorded)
    expect(offered).toEqual(['5:0', '7:0', '7:1', '7:0', '7:1', '9:0']);
    expect(cursor()).toBe(18n);
  });

  it('starts at the confirmed head when no start block is configured', async () => {
    const fake = fakeChain(1000, [logAt(10)]);
    const { ranges } = fake;
    const seen: FundedLog[] = [];
    const { w, cursor } = watcher(fake, {}, async (l) => (seen.push(l), 'credited'));
    await w.readOnce();
    expect(ranges).toEqual([]);
    expect(seen).toEqual([]);
    expect(cursor()).toBe(998n);
  });

  it('reads nothing from an RPC that serves another chain', async () => {
    const fake = fakeChain(100, [logAt(10)], 1);
    const { ranges } = fake;
    const { w, cursor } = watcher(fake, { startBlock: 0 }, async () => 'credited');
    await expect(w.readOnce()).rejects.toThrow('the RPC of base serves chain id 1, but base is 8453');
    expect(ranges).toEqual([]);
    expect(cursor()).toBeUndefined();
  });
});
