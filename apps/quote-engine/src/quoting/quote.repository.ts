import { Inject, Injectable } from '@nestjs/common';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';
import type { QuoteRow } from './quote-writer';

/** A stored quote as read by its hash (the `quotes` table, partitioned by day: see schema.prisma): the row written, with the database's created_at. */
export type StoredQuoteRow = QuoteRow & { createdAt: Date };

interface RawQuote {
  quote_hash: string;
  kind: string;
  src_chain: string;
  dst_chain: string;
  route_type: string;
  gasless: boolean;
  sponsor_fees: boolean;
  caller_kind: string;
  api_key_id: string | null;
  partner_id: string | null;
  /** {o: the order, r: the stored answer} (the `json` column, parsed by the driver). */
  body: { o: unknown; r: unknown };
  created_at: Date;
  expires_at: Date;
  retained_until: Date;
}

/**
 * Stored quotes, read by hash. A quote is written by the quote writer (its own connections, in
 * batches) and never updated; a day of them is dropped whole (QuotePartitions). No other query
 * reads `quotes`: the lists read orders.
 */
@Injectable()
export class QuoteRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  /** The quote with this hash (lower case), whichever day holds it; undefined when none does. */
  async find(quoteHash: string): Promise<StoredQuoteRow | undefined> {
    const rows = await this.db.$queryRaw<RawQuote[]>`SELECT quote_hash, kind, src_chain, dst_chain, route_type, gasless, sponsor_fees,
        caller_kind, api_key_id, partner_id, body, created_at, expires_at, retained_until
      FROM quotes WHERE quote_hash = ${quoteHash} LIMIT 1`;
    const r = rows[0];
    return r ? fromRaw(r) : undefined;
  }

  /** The partner the quote was made for, if any. */
  async partnerOf(quoteHash: string): Promise<string | undefined> {
    const rows = await this.db.$queryRaw<
      { partner_id: string | null }[]
    >`SELECT partner_id FROM quotes WHERE quote_hash = ${quoteHash} LIMIT 1`;
    return rows[0]?.partner_id ?? undefined;
  }
}

function fromRaw(r: RawQuote): StoredQuoteRow {
  return {
    quoteHash: r.quote_hash,
    kind: r.kind,
    srcChain: r.src_chain,
    dstChain: r.dst_chain,
    routeType: r.route_type,
    gasless: r.gasless,
    sponsorFees: r.sponsor_fees,
    callerKind: r.caller_kind,
    apiKeyId: r.api_key_id,
    partnerId: r.partner_id,
    order: r.body.o,
    response: r.body.r,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    retainedUntil: r.retained_until,
  };
}
