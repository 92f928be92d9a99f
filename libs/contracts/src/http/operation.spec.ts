import { z } from 'zod';
import { defineRpc } from '../rpc';
import { defineOperation } from './operation';
import { HTTP_OPERATIONS } from './operations';

const Item = z.object({ id: z.string() });
const GetItemRpc = defineRpc('partner.v1.test_get_item', z.object({ id: z.string() }), Item, { access: 'partner' });
const ListItemsRpc = defineRpc('partner.v1.test_list_items', z.object({}), z.object({ items: z.array(Item) }), { access: 'partner' });
const base = { method: 'GET', summary: 's', auth: 'bearer', tag: 'partner' } as const;

describe('defineOperation', () => {
  it('accepts an RPC whose request is assembled from the path parameters, and marks the operation served', () => {
    const op = defineOperation({
      ...base,
      operationId: 'GetItem',
      path: '/v1/items/{id}',
      pathParams: z.object({ id: z.string() }),
      response: Item,
      rpc: GetItemRpc,
    });
    expect(op.served).toBe(true);
    expect(op.rpc).toBe(GetItemRpc);
  });

  it('refuses, at compile time, an RPC its inputs cannot fill or whose reply is not its response', () => {
    // @ts-expect-error the RPC needs an id, and this operation takes none
    defineOperation({ ...base, operationId: 'GetItem', path: '/v1/item', response: Item, rpc: GetItemRpc });
    // @ts-expect-error the RPC answers a list, not one item
    defineOperation({ ...base, operationId: 'ListItems', path: '/v1/items', response: Item, rpc: ListItemsRpc });
    expect(true).toBe(true);
  });
});

describe('HTTP_OPERATIONS', () => {
  it('names each operation once, and a bearer operation always forwards to a partner RPC', () => {
    const ids = HTTP_OPERATIONS.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const op of HTTP_OPERATIONS)
      expect([op.operationId, op.auth === 'bearer']).toEqual([op.operationId, op.rpc.access.access === 'partner']);
  });
});
