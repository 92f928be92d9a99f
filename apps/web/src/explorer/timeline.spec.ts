import type { OrderView } from '../shared/api';
import { refundReasonText, secondsTaken, timelineOf } from './timeline';

const base: OrderView = {
  quote_hash: `0x${'1'.repeat(64)}`,
  status: 'quoted',
  terminal: false,
  src_chain: 'base',
  dst_chain: 'arbitrum',
  src_token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  dst_token: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
  amount_in: '25000000',
  amount_out: '24900000',
  min_amount_out: '24800000',
  quoted_at: '2026-12-01T10:00:00.000Z',
  expires_at: '2026-12-01T10:30:00.000Z',
  retained_until: '2026-12-01T11:00:00.000Z',
};
const step = (chain: string, tx: string, at: string) => ({ chain, tx_hash: tx, block_number: '7', at });

describe('an order timeline', () => {
  it('shows a quoted gasless order waiting for its relay, deposit and fill', () => {
    const t = timelineOf({ ...base, gasless: { quote_hash: base.quote_hash, status: 'queued', tx_hashes: [] } });
    expect(t.map((s) => [s.key, s.done])).toEqual([
      ['quoted', true],
      ['relayed', false],
      ['deposited', false],
      ['filled', false],
    ]);
  });

  it('ends with the fill, and says how long it took from the deposit', () => {
    const order: OrderView = {
      ...base,
      status: 'fulfilled',
      terminal: true,
      deposit: step('base', '0xd', '2026-12-01T10:01:00.000Z'),
      fulfillment: step('arbitrum', '0xf', '2026-12-01T10:01:04.000Z'),
    };
    expect(timelineOf(order).map((s) => [s.key, s.done, s.tx])).toEqual([
      ['quoted', true, undefined],
      ['deposited', true, '0xd'],
      ['filled', true, '0xf'],
    ]);
    expect(secondsTaken(order)).toBe(4);
  });

  it('ends with the refund and its reason, or with expiry, or with the failure', () => {
    const refunded = timelineOf({
      ...base,
      status: 'refunded',
      terminal: true,
      deposit: step('base', '0xd', '2026-12-01T10:01:00.000Z'),
      refund: { ...step('base', '0xr', '2026-12-01T10:02:00.000Z'), token: base.src_token, reason: 'INSUFFICIENT_INVENTORY' },
    });
    expect(refunded.at(-1)).toMatchObject({ key: 'refunded', detail: 'INSUFFICIENT_INVENTORY', tx: '0xr' });
    expect(refundReasonText('INSUFFICIENT_INVENTORY')).toMatch(/not have enough/);
    expect(refundReasonText('SOMETHING_NEW')).toBe('Refunded (SOMETHING_NEW).');
    expect(timelineOf({ ...base, status: 'expired', terminal: true }).at(-1)).toMatchObject({ key: 'expired', done: true });
    const failed = timelineOf({
      ...base,
      status: 'failed',
      terminal: true,
      failure: { reason: 'SIMULATION_REVERTED', message: 'SIMULATION_REVERTED: x', at: '2026-12-01T10:00:05.000Z' },
    });
    expect(failed.at(-1)).toMatchObject({ key: 'failed', detail: 'SIMULATION_REVERTED' });
  });
});
