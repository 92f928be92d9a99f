import { z } from 'zod';
import { defineRpc } from '../rpc';
import { AmountString } from '../wire';
import { GetQuoteRequest, PreviewQuoteRequest } from './quote-request';
import { QuotePreviewSchema, QuoteSchema, StoredQuoteSchema } from './quote-response';

export const PreviewQuoteRpc = defineRpc('quote.v1.preview', PreviewQuoteRequest, QuotePreviewSchema, { access: 'public' });
export const GetQuoteRpc = defineRpc('quote.v1.get', GetQuoteRequest, QuoteSchema, { access: 'public' });
/** Internal: a stored quote by hash, while retained (NOT_FOUND after). */
export const FetchQuoteRpc = defineRpc(
  'quote.v1.fetch',
  z.object({ quote_hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/) }),
  StoredQuoteSchema,
  { access: 'internal', callers: ['gasless-relayer', 'partner-service'] },
);

/**
 * Internal: the USD value of a token amount at the current oracle price, floored to the micro
 * (what a deposit is worth to the one crediting it). STALE_PRICE when no fresh price exists.
 */
export const ValueUsdRpc = defineRpc(
  'quote.v1.value_usd',
  z.object({ chain: z.string(), token: z.string(), amount: AmountString }),
  z.object({
    usd_micros: z.string().regex(/^(0|[1-9][0-9]*)$/),
    /** The price used: USD per whole token scaled by 1e18, so the value can be recomputed. */
    price_e18: z.string().regex(/^[1-9][0-9]*$/),
    decimals: z.number().int().min(0).max(255),
    price_id: z.string(),
    publish_time: z.number().int(),
  }),
  { access: 'internal', callers: ['gasless-relayer', 'partner-service'] },
);
