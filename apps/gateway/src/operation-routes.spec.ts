import { RpcError, defineOperation, defineRpc } from '@xchain/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { inputOf } from './operation-routes';

const base = { method: 'POST', path: '/v1/things/{id}', summary: 's', auth: 'bearer', tag: 'partner', response: z.object({}) } as const;
const request = (parts: Partial<Pick<FastifyRequest, 'params' | 'query' | 'body'>>) => parts as FastifyRequest;

describe('inputOf: the RPC request assembled from an operation’s inputs', () => {
  it('sends a fresh {} for an operation without inputs', () => {
    const op = defineOperation({
      ...base,
      operationId: 'Plain',
      rpc: defineRpc('partner.v1.test_plain', z.object({}), z.object({}), { access: 'partner' }),
    });
    const input = inputOf(op);
    const first = input(request({ body: { ignored: true } }));
    expect(first).toEqual({});
    expect(input(request({}))).not.toBe(first);
  });

  it('sends the parsed body itself when the body is the only input', () => {
    const body = z.object({ name: z.string().trim() });
    const op = defineOperation({
      ...base,
      operationId: 'Named',
      body,
      rpc: defineRpc('partner.v1.test_named', body, z.object({}), { access: 'partner' }),
    });
    expect(inputOf(op)(request({ body: { name: ' a ', extra: 1 } }))).toEqual({ name: 'a' });
  });

  it('merges path parameters, query and body, each parsed with its own schema', () => {
    const pathParams = z.object({ id: z.string() });
    const query = z.object({ page_size: z.coerce.number() });
    const body = z.object({ name: z.string() });
    const rpc = defineRpc('partner.v1.test_merged', z.object({ id: z.string(), page_size: z.number(), name: z.string() }), z.object({}), {
      access: 'partner',
    });
    const op = defineOperation({ ...base, operationId: 'Merged', pathParams, query, body, rpc });
    expect(inputOf(op)(request({ params: { id: 'k1' }, query: { page_size: '5' }, body: { name: 'n' } }))).toEqual({
      id: 'k1',
      page_size: 5,
      name: 'n',
    });
  });

  it('refuses a bad input with INVALID_ARGUMENT naming the field', () => {
    const body = z.object({ name: z.string() });
    const op = defineOperation({
      ...base,
      operationId: 'Named',
      body,
      rpc: defineRpc('partner.v1.test_named', body, z.object({}), { access: 'partner' }),
    });
    let err: unknown;
    try {
      inputOf(op)(request({ body: { name: 1 } }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RpcError);
    expect(JSON.stringify((err as RpcError).status)).toContain('name');
  });
});
