import { z } from 'zod';
import { ListChainsResponse } from '../registry/chain';
import { ListTokensResponse } from '../registry/token';
import type { HttpOperation } from './operation';

export const ListTokensOp: HttpOperation = {
  operationId: 'ListTokens',
  method: 'GET',
  path: '/v1/tokens',
  summary: 'Lists the tokens the service supports.',
  auth: 'none',
  tag: 'registry',
  response: ListTokensResponse,
  served: true,
  cacheable: true,
};

export const GetChainsOp: HttpOperation = {
  operationId: 'GetChains',
  method: 'GET',
  path: '/v1/chains',
  summary: 'Lists the chains, their limits and the contracts deposits go to.',
  auth: 'none',
  tag: 'registry',
  response: ListChainsResponse,
  served: true,
  cacheable: true,
};

const EmptyObject = z.object({}).meta({ id: 'Empty' });

/** Every operation of the public interface (interface.md and decisions D8), in document order. */
export const HTTP_OPERATIONS: readonly HttpOperation[] = [ListTokensOp, GetChainsOp];

export { EmptyObject };
