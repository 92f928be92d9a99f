import { z } from 'zod';
import { defineRpc } from '../rpc';
import { ListChainsResponse } from './chain';
import { ListTokensResponse } from './token';

const Empty = z.object({});

export const ListTokensRpc = defineRpc('registry.v1.list_tokens', Empty, ListTokensResponse);
export const ListChainsRpc = defineRpc('registry.v1.list_chains', Empty, ListChainsResponse);
