import { z } from 'zod';
import { defineRpc } from '../rpc';
import { ListChainsResponse } from './chain';
import { ListTokensResponse } from './token';
import { ListPriceFeedsResponse } from '../prices/price';

const Empty = z.object({});

export const ListTokensRpc = defineRpc('registry.v1.list_tokens', Empty, ListTokensResponse, {
  access: 'public',
  alsoCalledBy: ['partner-service'],
});
export const ListChainsRpc = defineRpc('registry.v1.list_chains', Empty, ListChainsResponse, {
  access: 'public',
  alsoCalledBy: ['partner-service'],
});

/** Internal: the price identities the oracle must keep fresh (served by the quote-engine). */
export const ListPriceFeedsRpc = defineRpc('registry.v1.list_price_feeds', Empty, ListPriceFeedsResponse, {
  access: 'internal',
  callers: ['price-oracle'],
});

/**
 * Published (core NATS, no reply) by a quote-engine whose reload found the chain or token list
 * changed, so gateways drop the lists they keep and ask again; their max age bounds staleness if
 * this message is missed. The body carries nothing a gateway needs: the subject is the message.
 */
export const REGISTRY_CHANGED_SUBJECT = 'registry.v1.events.changed';
