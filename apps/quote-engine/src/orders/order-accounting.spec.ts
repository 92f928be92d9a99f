import type { FeeBreakdown } from '@xchain/contracts';
import { orderAccounting } from './order-accounting';

const fees = (over: Partial<FeeBreakdown> = {}): FeeBreakdown => ({
  components: [
    { name: 'protocol_fee', side: 'src', usd_micros: '5000', native: '5000', charged: '5000' },
    { name: 'referrer_fee', side: 'src', usd_micros: '10000', native: '10000', charged: '10000' },
    { name: 'sponsor_gas', side: 'src', usd_micros: '30000', native: '30000', charged: '30000' },
    { name: 'dst_gas', side: 'dst', usd_micros: '16000', native: '8000000000000', charged: '16001' },
  ],
  src_total_usd_micros: '45000',
  dst_total_usd_micros: '16000',
  src_gas_native: '0',
  dst_gas_native: '8000000000000',
  route_in: '9955000',
  route_out: '9955000',
  ...over,
});

describe('orderAccounting', () => {
  it('on a fill: every charged fee, and reconciled when the chain delivered amount_out', () => {
    const a = orderAccounting('10000000', fees(), { kind: 'fulfilled', received: '9938999' })!;
    expect(a).toMatchObject({ received: '9938999', refunded: '0', src_fees: '45000', dst_fees: '16001', reconciled: true });
    expect(a.fees.map((f) => f.name)).toEqual(['protocol_fee', 'referrer_fee', 'sponsor_gas', 'dst_gas']);
    // The identity of the equal-units route: amount_in − received − refunded = the fees.
    expect(10_000_000n - 9_938_999n).toBe(BigInt(a.src_fees) + BigInt(a.dst_fees));
  });

  it('flags a fill that delivered another amount than the stated fees leave', () => {
    expect(orderAccounting('10000000', fees(), { kind: 'fulfilled', received: '9938998' })!.reconciled).toBe(false);
    expect(orderAccounting('10000000', fees(), { kind: 'fulfilled', received: '9939000' })!.reconciled).toBe(false);
  });

  it('on a refund: only the relay gas was borne, and reconciled when the rest came back', () => {
    const a = orderAccounting('10000000', fees(), { kind: 'refunded', refunded: '9970000' })!;
    expect(a).toMatchObject({ received: '0', refunded: '9970000', src_fees: '30000', dst_fees: '0', route_in: '0', reconciled: true });
    expect(a.fees).toEqual([{ name: 'sponsor_gas', side: 'src', charged: '30000' }]);
    expect(orderAccounting('10000000', fees(), { kind: 'refunded', refunded: '10000000' })!.reconciled).toBe(false);
  });

  it('leaves out fees a sponsor paid (charged 0) and gives nothing for quotes stored before charged was stated', () => {
    const sponsored = fees();
    sponsored.components[2] = { ...sponsored.components[2]!, charged: '0' };
    expect(orderAccounting('10000000', sponsored, { kind: 'refunded', refunded: '10000000' })).toMatchObject({
      fees: [],
      reconciled: true,
    });
    const old = fees({ route_in: undefined, route_out: undefined });
    expect(orderAccounting('10000000', old, { kind: 'fulfilled', received: '1' })).toBeUndefined();
    const { charged: _dropped, ...noCharged } = fees().components[0]!;
    expect(orderAccounting('10000000', fees({ components: [noCharged] }), { kind: 'fulfilled', received: '1' })).toBeUndefined();
  });
});
