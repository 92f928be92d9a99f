import { HTTP_OPERATIONS, OrderWireSchema, buildOpenApiDocument } from '@xchain/contracts';
import { ORDER_ABI_COMPONENTS, hashReferrers, toBytes32 } from './order';
import { sampleOrder } from './testing';
import { orderToWire } from './wire';

/** The wire name of an ABI component, as the codec writes it. */
const wireName = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

describe('OrderWireSchema (contracts) matches the order codec', () => {
  it('has exactly the ABI components as snake_case keys, in struct order, then referrers', () => {
    expect(Object.keys(OrderWireSchema.shape)).toEqual([...ORDER_ABI_COMPONENTS.map((c) => wireName(c.name)), 'referrers']);
  });

  it('shows every field as required in the OpenAPI document, where quotes reference it', () => {
    const doc = buildOpenApiDocument(HTTP_OPERATIONS, { title: 'xchain', version: 'test', serverUrl: 'http://localhost' }) as any;
    const order = doc.components.schemas.Order;
    expect(order.required).toEqual(Object.keys(OrderWireSchema.shape));
    expect(order.properties.amount_in).toMatchObject({ type: 'string', pattern: '^(0|[1-9][0-9]*)$' });
    expect(order.properties.salt).toMatchObject({ type: 'string', pattern: '^0x[0-9a-f]{64}$' });
    expect(order.properties.gasless).toMatchObject({ type: 'string', enum: ['true', 'false'] });
    expect(doc.components.schemas.CrossChainQuote.properties.order).toEqual({ $ref: '#/components/schemas/Order' });
    expect(doc.components.schemas.SameChainSwapQuote.properties.order).toEqual({ $ref: '#/components/schemas/Order' });
  });

  it('accepts what orderToWire emits and leaves its JSON byte for byte unchanged', () => {
    const referrers = [
      { account: toBytes32('evm', '0x1111111111111111111111111111111111111111'), bps: 25 },
      { account: toBytes32('svm', 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN'), bps: 5 },
    ];
    const orders = [
      orderToWire(sampleOrder(), []),
      orderToWire(
        sampleOrder({ gasless: true, sponsorFees: true, sponsorGas: 2_100_000n, referrersHash: hashReferrers(referrers) }),
        referrers,
      ),
      orderToWire(sampleOrder({ amountIn: (1n << 256n) - 1n, srcChainId: (1n << 64n) - 1n, version: 255, slippageBps: 65_535 }), []),
    ];
    for (const wire of orders) {
      const json = JSON.stringify(wire);
      expect(JSON.stringify(OrderWireSchema.parse(JSON.parse(json)))).toBe(json);
    }
  });

  it("holds each field to its ABI type's range and form", () => {
    const wire = orderToWire(sampleOrder(), []);
    const rejects = (field: string, value: unknown) => !OrderWireSchema.safeParse({ ...wire, [field]: value }).success;
    for (const { name, type } of ORDER_ABI_COMPONENTS) {
      const field = wireName(name);
      if (type === 'bool') {
        expect([rejects(field, 'true'), rejects(field, 'false')]).toEqual([false, false]);
        expect([rejects(field, true), rejects(field, 'TRUE'), rejects(field, '1')]).toEqual([true, true, true]);
      } else if (type === 'bytes32') {
        expect(rejects(field, `0x${'ab'.repeat(32)}`)).toBe(false);
        expect([rejects(field, `0x${'AB'.repeat(32)}`), rejects(field, `0x${'ab'.repeat(31)}`), rejects(field, 'ab'.repeat(32))]).toEqual([
          true,
          true,
          true,
        ]);
      } else {
        const bits = BigInt(type.replace('uint', ''));
        expect([rejects(field, String((1n << bits) - 1n)), rejects(field, '0')]).toEqual([false, false]);
        expect([
          rejects(field, String(1n << bits)),
          rejects(field, '01'),
          rejects(field, '-1'),
          rejects(field, '1.5'),
          rejects(field, 1),
        ]).toEqual([true, true, true, true, true]);
      }
      const { [field]: _dropped, ...missing } = wire as Record<string, unknown>;
      expect(OrderWireSchema.safeParse(missing).success).toBe(false);
    }
    expect(rejects('referrers', [{ account: `0x${'11'.repeat(32)}`, bps: '65536' }])).toBe(true);
    expect(rejects('referrers', undefined)).toBe(true);
  });
});
