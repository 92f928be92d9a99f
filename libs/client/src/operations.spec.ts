import { z } from 'zod';
import { HTTP_OPERATIONS } from '@xchain/contracts';
import { XchainClient } from './client';
import { CLIENT_OPERATIONS, NOT_CLIENT_METHODS, type OperationId, methodName } from './operations';

/** JSON Schema of a zod schema, without the registry id the table's schemas carry. */
const json = (schema: z.ZodType | undefined, io: 'input' | 'output') => {
  if (!schema) return undefined;
  const raw = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, any>;
  // A schema with a registry id comes back as a $ref to itself under $defs: inline it.
  const self = typeof raw['$ref'] === 'string' ? /^#\/\$defs\/(.+)$/.exec(raw['$ref'])?.[1] : undefined;
  const { $defs = {}, $ref: _ref, ...root } = raw;
  const defs = { ...$defs };
  const body = self ? { ...root, ...defs[self] } : root;
  if (self) delete defs[self];
  const { id: _id, ...rest } = body;
  return Object.keys(defs).length > 0 ? { ...rest, $defs: defs } : rest;
};

describe('the client against HTTP_OPERATIONS', () => {
  const served = HTTP_OPERATIONS.filter((op) => op.served);

  it('has a method for every served operation and none for anything else', () => {
    const client = new XchainClient({ baseUrl: 'http://127.0.0.1:1' }) as unknown as Record<string, unknown>;
    const expected = served.map((op) => op.operationId).filter((id) => !(id in NOT_CLIENT_METHODS));
    expect(Object.keys(CLIENT_OPERATIONS).sort()).toEqual([...expected].sort());
    for (const id of expected) expect([id, typeof client[methodName(id)]]).toEqual([id, 'function']);
    // and every exception names an operation that exists
    for (const id of Object.keys(NOT_CLIENT_METHODS)) expect(served.map((op) => op.operationId)).toContain(id);
  });

  it.each(Object.keys(CLIENT_OPERATIONS) as OperationId[])('types %s from the schemas the gateway serves', (id) => {
    const op = HTTP_OPERATIONS.find((o) => o.operationId === id)!;
    const mine = CLIENT_OPERATIONS[id] as { body?: z.ZodType; query?: z.ZodObject; pathParams?: z.ZodObject; response: z.ZodType };
    expect(json(mine.body, 'input')).toEqual(json(op.body, 'input'));
    expect(json(mine.query, 'input')).toEqual(json(op.query, 'input'));
    expect(json(mine.pathParams, 'input')).toEqual(json(op.pathParams, 'input'));
    expect(json(mine.response, 'output')).toEqual(json(op.response, 'output'));
  });

  it('would notice a schema that drifted (the comparison can fail)', () => {
    const drifted = z.object({ vouchers: z.array(z.object({ id: z.string() })) });
    const op = HTTP_OPERATIONS.find((o) => o.operationId === 'ListPartnerVouchers')!;
    expect(json(drifted, 'output')).not.toEqual(json(op.response, 'output'));
  });
});
