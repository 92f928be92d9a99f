import { OrderEventSchema, type OrderEvent } from '@xchain/contracts';
import { type Address, type Hex, pad } from 'viem';
import type { DepositChain, DepositedLog } from './deposit-chain';
import { depositSource } from './deposit-source';
import type { OrderEventPublisher } from './order-event-publisher';

const ROUTER = '0x5FbDB2315678afecb367f032d93F642f64180aa3' as Address;
const deposit = (block: bigint, logIndex: number, tx: Hex): DepositedLog => ({
  txHash: tx,
  logIndex,
  blockNumber: block,
  quoteHash: pad('0xab') as Hex,
  depositor: ROUTER,
  token: ROUTER,
  amount: 1n,
});

function fakes() {
  const blockTimes: bigint[] = [];
  const chain: DepositChain = {
    chainId: async () => 8453,
    head: async () => 100n,
    depositedLogs: async () => [],
    blockTime: async (b) => (blockTimes.push(b), new Date(Number(b) * 1000)),
  };
  const seen = new Set<string>();
  const published: { event: OrderEvent; msgId: string }[] = [];
  const publisher: OrderEventPublisher = {
    async publish(event, msgId) {
      published.push({ event, msgId });
      if (seen.has(msgId)) return 'duplicate';
      seen.add(msgId);
      return 'published';
    },
  };
  return { chain, publisher, published, blockTimes };
}

describe('depositSource', () => {
  it('is named after the chain and the router, so a new router starts a new position', () => {
    const { chain, publisher } = fakes();
    expect(depositSource('base', ROUTER, chain, publisher).name).toBe(`deposits:base:${ROUTER.toLowerCase()}`);
  });

  it('publishes orders.v1.deposited with the block and its time, keyed by the log, once per log', async () => {
    const { chain, publisher, published, blockTimes } = fakes();
    const source = depositSource('base', ROUTER, chain, publisher);
    const tx = pad('0x0123') as Hex;
    expect(await source.handle(deposit(1_700_000_000n, 3, tx))).toBe('published');
    expect(await source.handle(deposit(1_700_000_000n, 4, tx))).toBe('published');
    expect(blockTimes).toEqual([1_700_000_000n]); // one block, one lookup
    const first = published[0]!;
    expect(OrderEventSchema.parse(first.event)).toEqual(first.event);
    expect(first).toEqual({
      event: { type: 'deposited', quote_hash: pad('0xab'), chain: 'base', tx_hash: tx, block_number: '1700000000', occurred_at: '2023-11-14T22:13:20.000Z' },
      msgId: `deposited:base:${tx}:3`,
    });
    expect(published[1]!.msgId).toBe(`deposited:base:${tx}:4`);
    // a block read again publishes the same ids, which the stream drops (and the watcher does not log)
    expect(await source.handle(deposit(1_700_000_000n, 3, tx))).toBe('duplicate');
  });
});
