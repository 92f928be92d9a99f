import { base58Decode, base58Encode } from './base58';
import { type Order, ZERO_BYTES32, fromBytes32, hashOrder, hashReferrers, toBytes32 } from './order';
import { sampleOrder } from './testing';
import { orderFromWire, orderToWire } from './wire';

describe('order codec', () => {
  it('decodes base58 keys: the all-ones key is 32 zero bytes, USDC mint round-trips', () => {
    expect(base58Decode('11111111111111111111111111111111')).toEqual(new Uint8Array(32));
    const usdc = base58Decode('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
    expect(usdc).toHaveLength(32);
    expect(base58Encode(usdc)).toBe('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
    expect(() => base58Decode('0OIl')).toThrow(/invalid base58/);
  });

  it('maps addresses to bytes32 and back', () => {
    const evm = toBytes32('evm', '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
    expect(evm).toBe('0x000000000000000000000000a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
    expect(fromBytes32('evm', evm)).toBe('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48');
    expect(fromBytes32('svm', toBytes32('svm', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'))).toBe(
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    );
    expect(() => toBytes32('svm', '1111')).toThrow(/32-byte/);
  });

  it('round-trips through the wire form with every value a string', () => {
    const referrers = [{ account: toBytes32('evm', '0x1111111111111111111111111111111111111111'), bps: 25 }];
    const order = sampleOrder({ referrersHash: hashReferrers(referrers) });
    const wire = orderToWire(order, referrers);
    expect(Object.values(wire).every((v) => typeof v === 'string' || Array.isArray(v))).toBe(true);
    expect(wire['amount_in']).toBe('1000000000');
    expect(wire['gasless']).toBe('false');
    expect(orderFromWire(JSON.parse(JSON.stringify(wire)))).toEqual({ order, referrers });
    expect(() => orderFromWire({ ...wire, referrers: [] })).toThrow(/do not match/);
    expect(() => orderFromWire({ ...wire, slippage_bps: '70000' })).toThrow(/exceeds uint16/);
  });

  it('changes the hash when any field changes', () => {
    const base = hashOrder(sampleOrder());
    expect(base).toMatch(/^0x[0-9a-f]{64}$/);
    const variants: Partial<Order>[] = [
      { amountOut: 999_000_001n },
      { gasless: true },
      { recipient: ZERO_BYTES32 },
      { tradeType: 2 },
      { expiresAt: 1n },
      { salt: ZERO_BYTES32 },
    ];
    for (const v of variants) expect(hashOrder(sampleOrder(v))).not.toBe(base);
  });
});
