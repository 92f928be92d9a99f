import { z } from 'zod';
import { defineRpc } from '../rpc';
import { GetQuoteRequest, PreviewQuoteRequest } from './quote-request';
import { QuotePreviewSchema, QuoteSchema, StoredQuoteSchema } from './quote-response';

export const PreviewQuoteRpc = defineRpc('quote.v1.preview', PreviewQuoteRequest, QuotePreviewSchema);
export const GetQuoteRpc = defineRpc('quote.v1.get', GetQuoteRequest, QuoteSchema);
/** Internal: a stored quote by hash, while retained (NOT_FOUND after). */
export const FetchQuoteRpc = defineRpc(
  'quote.v1.fetch',
  z.object({ quote_hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/) }),
  StoredQuoteSchema,
);
