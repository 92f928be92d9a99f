import { EXPORT_FEE_NAMES, type OrderStatus, PARTNER_ORDER_CSV_COLUMNS, type Quote } from '@xchain/contracts';
import { orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { exportRow } from './order-export';
import type { StoredOrder } from './order-records';

const HASH = `0x${'ab'.repeat(32)}`;
const REFERRER = '0x52908400098527886E0F7030069857D2E4169EE7';

const view: OrderStatus = {
  quote_hash: HASH,
  status: 'fulfilled',
  terminal: true,
  src_chain: 'base',
  dst_chain: 'arbitrum',
  src_token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  dst_token: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
  amount_in: '1000003',
  amount_out: '990000',
  min_amount_out: '985000',
  quoted_at: '2026-11-22T10:00:00.123Z',
  expires_at: '2026-11-22T10:30:00Z',
  retained_until: '2026-11-29T10:00:00Z',
  deposit: { chain: 'base', tx_hash: '0xdep', block_number: '1', at: '2026-11-22T10:01:00Z' },
  fulfillment: { chain: 'arbitrum', tx_hash: '0xfill', block_number: '2', at: '2026-11-22T10:02:00Z', amount: '990100' },
};

function stored(): StoredOrder {
  const fee_breakdown = {
    components: [
      { name: 'protocol_fee', side: 'src', usd_micros: '100', native: '100' },
      { name: 'referrer_fee', side: 'src', usd_micros: '333', native: '333' },
      { name: 'dst_gas', side: 'dst', usd_micros: '40', native: '12' },
      { name: 'dst_gas', side: 'dst', usd_micros: '2', native: '3' },
    ],
    src_total_usd_micros: '433',
    dst_total_usd_micros: '42',
    src_gas_native: '0',
    dst_gas_native: '77',
  };
  return {
    quoteHash: HASH,
    srcChain: 'base',
    dstChain: 'arbitrum',
    gasless: false,
    order: orderToWire(sampleOrder({ amountIn: 1_000_003n, gasDrop: 5n }), [{ account: toBytes32('evm', REFERRER), bps: 33 }]),
    response: { cross_chain: { amount_in: '1000003', fee_breakdown } } as unknown as Quote,
    createdAt: new Date(view.quoted_at),
    expiresAt: new Date(view.expires_at),
    retainedUntil: new Date(view.retained_until),
  };
}

describe('exportRow', () => {
  const row = exportRow(view, stored(), (_chain, b) => `0x${b.slice(26)}`);
  const col = (name: string) => row[PARTNER_ORDER_CSV_COLUMNS.indexOf(name)];

  it('gives one cell per column, amounts as the base-unit integers stored and seen', () => {
    expect(row).toHaveLength(PARTNER_ORDER_CSV_COLUMNS.length);
    expect([col('quote_hash'), col('created_at'), col('status'), col('amount_in'), col('received'), col('refunded')]).toEqual([
      HASH,
      view.quoted_at,
      'fulfilled',
      '1000003',
      '990100',
      '',
    ]);
    expect([col('gas_drop'), col('deposit_tx'), col('fulfillment_tx'), col('refund_tx')]).toEqual(['5', '0xdep', '0xfill', '']);
  });

  it('states each fee in its own column (summed per name, 0 when absent) and the referrer payout rounded down', () => {
    expect(EXPORT_FEE_NAMES.map((n) => [n, col(`fee_${n}`)])).toEqual(
      EXPORT_FEE_NAMES.map((n) => [n, ({ protocol_fee: '100', referrer_fee: '333', dst_gas: '15' } as Record<string, string>)[n] ?? '0']),
    );
    // 1000003 × 33 / 10000 = 3300.0099: the referrer is owed 3300, never 3301.
    expect(col('referrer_payouts')).toBe(`${REFERRER.toLowerCase()}:33:3300`);
    expect(col('fee_components')).toBe('protocol_fee:src:100:100;referrer_fee:src:333:333;dst_gas:dst:40:12;dst_gas:dst:2:3');
    expect([col('fees_src_usd_micros'), col('fees_dst_usd_micros'), col('dst_gas_native')]).toEqual(['433', '42', '77']);
  });
});
