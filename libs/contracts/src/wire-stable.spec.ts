import { z } from 'zod';
import { GetOrderRpc } from './http/schemas/order-status';
import { GetQuoteRpc, PreviewQuoteRpc } from './quoting/subjects';
import { GetQuoteRequest } from './quoting/quote-request';
import { isWireStable } from './wire-stable';

describe('isWireStable: a reply that parses back to the JSON it came from', () => {
  it('holds for the replies the gateway forwards as bytes (quotes, previews, order views)', () => {
    expect(isWireStable(PreviewQuoteRpc.response)).toBe(true);
    expect(isWireStable(GetQuoteRpc.response)).toBe(true);
    expect(isWireStable(GetOrderRpc.response)).toBe(true);
  });

  it('fails for a request schema that normalises its input (GetQuote’s trade type and gas drop)', () => {
    expect(isWireStable(GetQuoteRequest)).toBe(false);
  });

  it.each<[string, z.ZodType]>([
    ['a transform', z.object({ a: z.string().transform((s) => s.length) })],
    ['a default', z.object({ a: z.string().default('x') })],
    ['a catch', z.object({ a: z.number().catch(0) })],
    ['a coercion', z.object({ a: z.coerce.string() })],
    ['a trim', z.object({ a: z.string().trim() })],
    ['a lower-casing deep in an array', z.object({ a: z.array(z.object({ b: z.string().toLowerCase() })) })],
    ['a transform in one union branch', z.union([z.object({ a: z.string() }), z.object({ b: z.string().transform(Number) })])],
    ['a transform in a record value', z.record(z.string(), z.string().transform(Number))],
    ['a date (never JSON)', z.object({ a: z.date() })],
    ['a bigint (never JSON)', z.object({ a: z.bigint() })],
  ])('fails for %s', (_name, schema) => {
    expect(isWireStable(schema)).toBe(false);
  });

  it.each<[string, z.ZodType]>([
    [
      'refinements, regexes, optional and nullable fields',
      z.object({
        a: z
          .string()
          .regex(/^x+$/)
          .refine((s) => s.length < 9)
          .optional(),
        b: z.number().int().nullable(),
      }),
    ],
    [
      'unions, literals, enums, tuples and records',
      z.union([z.tuple([z.literal('a'), z.enum(['x', 'y'])]), z.record(z.string(), z.boolean())]),
    ],
  ])('holds for %s', (_name, schema) => {
    expect(isWireStable(schema)).toBe(true);
  });

  it('decides a recursive schema by its other branches', () => {
    type Tree = { name: string; children: Tree[] };
    const Tree: z.ZodType<Tree> = z.lazy(() => z.object({ name: z.string(), children: z.array(Tree) }));
    expect(isWireStable(Tree)).toBe(true);
    const Bad: z.ZodType<unknown> = z.lazy(() => z.object({ name: z.string().trim(), children: z.array(Bad) }));
    expect(isWireStable(Bad)).toBe(false);
  });
});
