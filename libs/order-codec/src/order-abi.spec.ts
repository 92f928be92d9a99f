import fc from 'fast-check';
import { type Hex, encodeAbiParameters, encodeFunctionData, keccak256, toHex } from 'viem';
import { ORDER_ABI_COMPONENTS, type Order, hashOrder } from './order';
import { ORDER_ABI_BYTES, encodeOrder, encodeOrderHex } from './order-abi';
import { sampleOrder } from './testing';

// viem's generic encoder is the reference the hand-written one must match word for word.
const ORDER_TUPLE = [{ type: 'tuple', components: ORDER_ABI_COMPONENTS }] as const;
const ROUTER_CALLS = [
  { type: 'function', name: 'deposit', stateMutability: 'payable', inputs: [{ name: 'order', ...ORDER_TUPLE[0] }], outputs: [] },
  { type: 'function', name: 'refund', stateMutability: 'nonpayable', inputs: [{ name: 'order', ...ORDER_TUPLE[0] }], outputs: [] },
] as const;
const viemEncode = (order: Order): Hex => encodeAbiParameters(ORDER_TUPLE, [order]);

type Component = (typeof ORDER_ABI_COMPONENTS)[number];
type UintComponent = Extract<Component, { type: `uint${string}` }>;
const UINTS = ORDER_ABI_COMPONENTS.filter((c): c is UintComponent => c.type.startsWith('uint'));
const BYTES32S = ORDER_ABI_COMPONENTS.filter((c) => c.type === 'bytes32');
const bitsOf = (c: UintComponent): number => Number(c.type.slice(4));
/** The Order type carries the 8- and 16-bit fields as numbers, the wider ones as bigints. */
const asField = (c: UintComponent, v: bigint): bigint | number => (bitsOf(c) <= 16 ? Number(v) : v);

const NUM_RUNS = 400;

/** A uintN value of a random bit length (so every byte length occurs), the ends 0 and 2^N-1 often. */
function arbUint(c: UintComponent): fc.Arbitrary<bigint | number> {
  const bits = bitsOf(c);
  const max = (1n << BigInt(bits)) - 1n;
  const anyLength = fc.integer({ min: 1, max: bits }).chain((len) => fc.bigInt({ min: 0n, max: (1n << BigInt(len)) - 1n }));
  return fc.oneof(fc.constantFrom(0n, max), anyLength).map((v) => asField(c, v));
}

/** 32 random bytes as hex, in lower, upper or mixed case (viem accepts all three). */
const arbBytes32: fc.Arbitrary<Hex> = fc
  .tuple(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.constantFrom('lower', 'upper', 'mixed'))
  .map(([bytes, style]): Hex => {
    const digits = toHex(bytes).slice(2);
    if (style === 'lower') return `0x${digits}`;
    if (style === 'upper') return `0x${digits.toUpperCase()}`;
    return `0x${[...digits].map((d, i) => (i % 2 ? d.toUpperCase() : d)).join('')}`;
  });

function arbField(c: Component): fc.Arbitrary<unknown> {
  if (c.type === 'bool') return fc.boolean();
  if (c.type === 'bytes32') return arbBytes32;
  return arbUint(c);
}

const arbOrder = fc.record(Object.fromEntries(ORDER_ABI_COMPONENTS.map((c) => [c.name, arbField(c)]))) as unknown as fc.Arbitrary<Order>;

/** Every uint at 2^N-1, every bytes32 all ones, both bools true; and the all-zero order. */
const allMax = Object.fromEntries(
  ORDER_ABI_COMPONENTS.map((c) => [
    c.name,
    c.type === 'bool' ? true : c.type === 'bytes32' ? `0x${'ff'.repeat(32)}` : asField(c, (1n << BigInt(bitsOf(c))) - 1n),
  ]),
) as unknown as Order;
const allZero = Object.fromEntries(
  ORDER_ABI_COMPONENTS.map((c) => [c.name, c.type === 'bool' ? false : c.type === 'bytes32' ? `0x${'00'.repeat(32)}` : asField(c, 0n)]),
) as unknown as Order;
const EXAMPLES: [Order][] = [[allMax], [allZero], [sampleOrder()]];

/** fast-check plus a count of the cases that reached the assertions, so a property cannot pass on none. */
function assertForAllOrders(check: (order: Order) => void): void {
  let reached = 0;
  fc.assert(
    fc.property(arbOrder, (order) => {
      check(order);
      reached++;
    }),
    { numRuns: NUM_RUNS, examples: EXAMPLES },
  );
  expect(reached).toBeGreaterThanOrEqual(NUM_RUNS);
}

describe('encodeOrder (abi.encode of the Order struct, without viem)', () => {
  it('matches viem encodeAbiParameters byte for byte, for random values across every field’s full range', () => {
    assertForAllOrders((order) => {
      const reference = viemEncode(order);
      const hex = encodeOrderHex(order);
      expect(hex).toHaveLength(2 + 2 * ORDER_ABI_BYTES);
      // viem copies a bytes32 in the case it was given; the bytes are the same either way.
      expect(hex).toBe(reference.toLowerCase());
      expect(toHex(encodeOrder(order))).toBe(hex);
    });
  });

  it('hashOrder equals keccak256 of viem’s encoding', () => {
    assertForAllOrders((order) => expect(hashOrder(order)).toBe(keccak256(viemEncode(order))));
  });

  it('deposit(order) and refund(order) calldata, selector and order words, equal viem encodeFunctionData', () => {
    assertForAllOrders((order) => {
      for (const functionName of ['deposit', 'refund'] as const) {
        const reference = encodeFunctionData({ abi: ROUTER_CALLS, functionName, args: [order] });
        expect(`${reference.slice(0, 10)}${encodeOrderHex(order).slice(2)}`).toBe(reference.toLowerCase());
      }
    });
  });

  it('gives each order its own bytes: one encoding is not overwritten by the next (they come from a shared pool)', () => {
    const orders = [allMax, allZero, sampleOrder()];
    const encodings = orders.map((o) => encodeOrder(o));
    orders.forEach((o, i) => expect(toHex(encodings[i]!)).toBe(viemEncode(o).toLowerCase()));
  });

  it('hashes and writes calldata from an encoding passed in exactly as from the order', () => {
    assertForAllOrders((order) => {
      const encoded = encodeOrder(order);
      expect(hashOrder(order, encoded)).toBe(keccak256(viemEncode(order)));
      expect(encodeOrderHex(order, encoded)).toBe(viemEncode(order).toLowerCase());
    });
  });

  it('takes an integer number or a bigint for any uint field, as viem does', () => {
    const mixed = { ...sampleOrder(), version: 1n, slippageBps: 65_535n, srcChainId: 2 ** 60, amountIn: 12_345 } as unknown as Order;
    expect(encodeOrderHex(mixed)).toBe(viemEncode(mixed));
  });
});

describe('encodeOrder rejects what viem rejects', () => {
  /** The order with one field replaced; `bad` is outside the Order type on purpose. */
  const withField = (name: string, bad: unknown): Order => ({ ...sampleOrder(), [name]: bad }) as unknown as Order;

  function expectBothReject(name: string, bad: unknown): void {
    const order = withField(name, bad);
    expect(() => viemEncode(order)).toThrow();
    expect(() => encodeOrder(order)).toThrow(new RegExp(`^order\\.${name} `));
    expect(() => hashOrder(order)).toThrow(new RegExp(`^order\\.${name} `));
  }

  it.each(UINTS.map((c) => [c.name, c.type, c] as const))(
    '%s (%s): negative, 2^N, and for a number a fraction, NaN or Infinity',
    (name, _type, c) => {
      const bits = bitsOf(c);
      expectBothReject(name, asField(c, -1n));
      expectBothReject(name, asField(c, 1n << BigInt(bits)));
      expectBothReject(name, -1);
      expectBothReject(name, 1.5);
      expectBothReject(name, Number.NaN);
      expectBothReject(name, Number.POSITIVE_INFINITY);
      // and the ends of the range are taken
      expect(encodeOrderHex(withField(name, asField(c, (1n << BigInt(bits)) - 1n)))).toBe(
        viemEncode(withField(name, asField(c, (1n << BigInt(bits)) - 1n))),
      );
      expect(encodeOrderHex(withField(name, asField(c, 0n)))).toBe(viemEncode(withField(name, asField(c, 0n))));
    },
  );

  it.each(BYTES32S.map((c) => [c.name]))('%s (bytes32): 31 or 33 bytes, not a string', (name) => {
    expectBothReject(name, `0x${'ab'.repeat(31)}`);
    expectBothReject(name, `0x${'ab'.repeat(33)}`);
    expectBothReject(name, 7n);
  });

  it.each(['gasless', 'sponsorFees'])('%s (bool): 1, "true", undefined', (name) => {
    expectBothReject(name, 1);
    expectBothReject(name, 'true');
    expectBothReject(name, undefined);
  });

  it('also refuses a bytes32 that viem would mis-encode: 63 hex digits, or 64 characters that are not hex', () => {
    // viem left-pads the odd digit into a different word, and copies non-hex characters into the
    // encoding (its keccak256 then hashes that text as UTF-8); neither is an Order a contract can see.
    const odd = withField('salt', `0x${'a'.repeat(63)}`);
    const notHex = withField('salt', `0x${'zz'.repeat(32)}`);
    expect(viemEncode(odd)).toHaveLength(2 + 2 * ORDER_ABI_BYTES);
    expect(viemEncode(notHex)).toContain('zz');
    expect(() => encodeOrder(odd)).toThrow(/^order\.salt must be a bytes32/);
    expect(() => encodeOrder(notHex)).toThrow(/^order\.salt must be a bytes32/);
  });
});
