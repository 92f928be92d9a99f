import { OrderEventSchema, type OrderEvent } from '@xchain/contracts';
import { type Address, type Hex, pad } from 'viem';
import type { ChainStepStore, PublishedStep } from './chain-steps.repository';
import type { DepositChain, RouterLog } from './deposit-chain';
import { depositSource } from './deposit-source';
import type { OrderEventPublisher } from './order-event-publisher';

const ROUTER = '0x5FbDB2315678afecb367f032d93F642f64180aa3' as Address;
const USER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as Address;
const BLOCK_HASH = pad('0xb10c', { size: 32 }) as Hex;
const at = (block: bigint, logIndex: number, tx: Hex) => ({ txHash: tx, logIndex, blockNumber: block, blockHash: BLOCK_HASH });
const deposit = (block: bigint, logIndex: number, tx: Hex): RouterLog => ({
  ...at(block, logIndex, tx),
  kind: 'deposited',
  quoteHash: pad('0xab'),
  depositor: USER,
  token: ROUTER,
  amount: 1n,
});

function fakes() {
  const blockTimes: bigint[] = [];
  const chain: DepositChain = {
    chainId: async () => 8453,
    head: async () => 100n,
    routerLogs: async () => [],
    blockTime: async (b) => (blockTimes.push(b), new Date(Number(b) * 1000)),
    blockHash: async () => BLOCK_HASH,
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
  const rows: (PublishedStep & { watcher: string; withdrawn: boolean })[] = [];
  const steps: ChainStepStore = {
    record: async (watcher, s) => {
      if (!rows.some((r) => r.watcher === watcher && r.txHash === s.txHash && r.logIndex === s.logIndex && r.blockHash === s.blockHash))
        rows.push({ ...s, watcher, withdrawn: false });
    },
    since: async (watcher, b) => rows.filter((r) => r.watcher === watcher && !r.withdrawn && r.blockNumber > b),
    markWithdrawn: async (watcher, s) => {
      for (const r of rows)
        if (r.watcher === watcher && r.txHash === s.txHash && r.logIndex === s.logIndex && r.blockHash === s.blockHash) r.withdrawn = true;
    },
  };
  return { chain, publisher, published, blockTimes, steps, rows };
}

describe('depositSource (the order watcher of one router)', () => {
  it('is named after the chain and the router, so a new router starts a new position', () => {
    const { chain, publisher } = fakes();
    expect(depositSource('base', ROUTER, chain, publisher).name).toBe(`deposits:base:${ROUTER.toLowerCase()}`);
  });

  it('publishes orders.v1.deposited with the block, its hash and time, keyed by the log, once per log', async () => {
    const { chain, publisher, published, blockTimes, steps, rows } = fakes();
    const source = depositSource('base', ROUTER, chain, publisher, steps);
    const tx = pad('0x0123') as Hex;
    expect(await source.handle(deposit(1_700_000_000n, 3, tx))).toBe('published');
    expect(await source.handle(deposit(1_700_000_000n, 4, tx))).toBe('published');
    expect(blockTimes).toEqual([1_700_000_000n]); // one block, one lookup
    const first = published[0]!;
    expect(OrderEventSchema.parse(first.event)).toEqual(first.event);
    expect(first).toEqual({
      event: {
        type: 'deposited',
        quote_hash: pad('0xab'),
        chain: 'base',
        tx_hash: tx,
        block_number: '1700000000',
        block_hash: BLOCK_HASH,
        log_index: 3,
        amount: '1',
        occurred_at: '2023-11-14T22:13:20.000Z',
      },
      msgId: `deposited:base:${tx}:3:${BLOCK_HASH}`,
    });
    expect(published[1]!.msgId).toBe(`deposited:base:${tx}:4:${BLOCK_HASH}`);
    // a block read again publishes the same ids, which the stream drops (and the watcher does not log)
    expect(await source.handle(deposit(1_700_000_000n, 3, tx))).toBe('duplicate');
    expect(rows.map((r) => r.logIndex)).toEqual([3, 4]);
  });

  it('publishes fills as orders.v1.fulfilled and refunds as orders.v1.refunded, with the amount moved', async () => {
    const { chain, publisher, published } = fakes();
    const source = depositSource('base', ROUTER, chain, publisher);
    const tx = pad('0x0456') as Hex;
    await source.handle({
      ...at(10n, 0, tx),
      kind: 'fulfilled',
      quoteHash: pad('0xcd'),
      filler: USER,
      recipient: USER,
      token: ROUTER,
      amount: 29_500_000n,
      gasDrop: 7n,
    });
    await source.handle({ ...at(11n, 2, tx), kind: 'refunded', quoteHash: pad('0xef'), to: USER, token: ROUTER, amount: 10n ** 16n });
    expect(published.map((p) => [p.event.type, p.event.quote_hash, p.event.amount, p.msgId.split(':')[0]])).toEqual([
      ['fulfilled', pad('0xcd'), '29500000', 'fulfilled'],
      ['refunded', pad('0xef'), '10000000000000000', 'refunded'],
    ]);
  });

  it('withdraws a step with the event it published, marked removed, once', async () => {
    const { chain, publisher, published, steps, rows } = fakes();
    const source = depositSource('base', ROUTER, chain, publisher, steps);
    const tx = pad('0x0789') as Hex;
    await source.handle(deposit(50n, 1, tx));
    const [step] = await source.steps!.since(0n);
    await source.steps!.withdraw(step!);
    await source.steps!.withdraw(step!); // a retried pass: nothing more is published
    expect(published.map((p) => p.event.removed ?? false)).toEqual([false, true]);
    expect(published[1]!.event).toEqual({ ...published[0]!.event, removed: true });
    expect(published[1]!.msgId).toBe(`withdrawn:${published[0]!.msgId}`);
    expect(rows[0]!.withdrawn).toBe(true);
    expect(await source.steps!.since(0n)).toEqual([]);
  });
});
