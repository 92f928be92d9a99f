import type { PrismaClient } from '@xchain/quote-engine-db';
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

/** Makes the days of `quotes` that hold these retention ends (QuoteDays does it in the service). */
export async function ensureQuoteDays(db: Pick<PrismaClient, '$queryRaw'>, ...retainedUntil: Date[]): Promise<void> {
  const days = new Set(retainedUntil.map((d) => d.toISOString().slice(0, 10)));
  for (const day of days) await db.$queryRaw`SELECT quote_day_ensure(${day}::date)`;
}

/** Stores quotes straight into `quotes` (their days made first), as the writer would; created_at is the database's clock unless given. */
export async function insertQuotes(
  db: Pick<PrismaClient, '$queryRaw' | '$executeRaw'>,
  rows: (QuoteRow & { createdAt?: Date })[],
): Promise<void> {
  await ensureQuoteDays(db, ...rows.map((r) => r.retainedUntil));
  for (const r of rows)
    await db.$executeRaw`INSERT INTO quotes (quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees, caller_kind, api_key_id,
        partner_id, body, created_at, expires_at, retained_until)
      VALUES (${r.quoteHash}, ${r.kind}, ${r.srcChain}, ${r.dstChain}, ${r.routeType}, ${r.gasless}, ${r.sponsorFees}, ${r.callerKind},
        ${r.apiKeyId}, ${r.partnerId}, ${JSON.stringify({ o: r.order, r: r.response })}::json,
        ${r.createdAt ?? new Date()}, ${r.expiresAt}, ${r.retainedUntil})`;
}
