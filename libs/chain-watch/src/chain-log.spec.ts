import { type Hex, pad } from 'viem';
import { inChainOrder, placedLogs } from './chain-log';

describe('inChainOrder', () => {
  it('orders by block, then by log index', () => {
    const at = (blockNumber: bigint, logIndex: number) => ({ txHash: '0x' as const, blockNumber, logIndex });
    expect([at(2n, 0), at(1n, 5), at(1n, 1), at(10n, 0)].sort(inChainOrder)).toEqual([at(1n, 1), at(1n, 5), at(2n, 0), at(10n, 0)]);
  });
});

describe('placedLogs', () => {
  it('keeps only logs that sit in a block, in chain order, with their place', () => {
    const tx = pad('0x01') as Hex;
    const hash = (n: bigint | null) => (n === null ? null : (pad(`0x${n.toString(16)}`) as Hex));
    const rpc = (blockNumber: bigint | null, logIndex: number | null, removed = false) => ({
      transactionHash: tx,
      blockNumber,
      blockHash: hash(blockNumber),
      logIndex,
      removed,
      data: `${blockNumber}:${logIndex}`,
    });
    const logs = [rpc(5n, 1), rpc(5n, 0), rpc(null, null), rpc(3n, 2, true), rpc(2n, 7)];
    expect(placedLogs(logs, (l, at) => ({ ...at, data: l.data }))).toEqual([
      { txHash: tx, blockNumber: 2n, blockHash: hash(2n), logIndex: 7, data: '2:7' },
      { txHash: tx, blockNumber: 5n, blockHash: hash(5n), logIndex: 0, data: '5:0' },
      { txHash: tx, blockNumber: 5n, blockHash: hash(5n), logIndex: 1, data: '5:1' },
    ]);
  });
});
