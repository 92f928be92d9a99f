import type { OrderEvent } from '@xchain/contracts';
import { sameStep, stepOf } from './fulfilment-step';

const fill = (over: Partial<OrderEvent> = {}): OrderEvent => ({
  type: 'fulfilled',
  quote_hash: `0x${'ab'.repeat(32)}`,
  chain: 'arbitrum',
  tx_hash: `0x${'CD'.repeat(32)}`,
  occurred_at: '2026-11-23T10:00:00Z',
  log_index: 4,
  block_hash: `0x${'EE'.repeat(32)}`,
  ...over,
});

describe('fulfilment steps', () => {
  it('names a fulfilment by chain, tx, log index and block, hex in lower case', () => {
    expect(stepOf(fill())).toEqual({ chain: 'arbitrum', txHash: `0x${'cd'.repeat(32)}`, logIndex: 4, blockHash: `0x${'ee'.repeat(32)}` });
    expect(stepOf(fill({ chain: 'solana', tx_hash: '5VERYbase58Sig', log_index: undefined, block_hash: undefined }))).toEqual({
      chain: 'solana',
      txHash: '5VERYbase58Sig',
      logIndex: null,
      blockHash: null,
    });
  });

  it('matches the withdrawal of the same step, not a re-inclusion in another block nor another log', () => {
    const accrued = stepOf(fill());
    expect(sameStep(accrued, stepOf(fill({ removed: true })))).toBe(true);
    expect(sameStep(accrued, stepOf(fill({ block_hash: `0x${'ff'.repeat(32)}` })))).toBe(false);
    expect(sameStep(accrued, stepOf(fill({ log_index: 5 })))).toBe(false);
    expect(sameStep(accrued, stepOf(fill({ tx_hash: `0x${'01'.repeat(32)}` })))).toBe(false);
    expect(sameStep(accrued, stepOf(fill({ chain: 'base' })))).toBe(false);
  });

  it('matches on what both events carry when an older one lacks the log index or block', () => {
    const old = stepOf(fill({ log_index: undefined, block_hash: undefined }));
    expect(sameStep(old, stepOf(fill({ removed: true })))).toBe(true);
    expect(sameStep(stepOf(fill({ removed: true })), old)).toBe(true);
  });
});
