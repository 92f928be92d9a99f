import type { QuoteRow } from './quote-writer';

/** A stored-quote row for the writer's and the purge's tests: a keyless cross-chain quote, overridable field by field. */
export function quoteRow(quoteHash: string, over: Partial<QuoteRow> = {}): QuoteRow {
  return {
    quoteHash,
    kind: 'cross_chain',
    srcChain: 'ethereum',
    dstChain: 'base',
    routeType: 'cross_chain',
    gasless: false,
    sponsorFees: false,
    callerKind: 'keyless',
    apiKeyId: null,
    partnerId: null,
    order: {},
    response: {},
    expiresAt: new Date(Date.now() + 1_800_000),
    retainedUntil: new Date(Date.now() + 86_400_000),
    ...over,
  };
}
