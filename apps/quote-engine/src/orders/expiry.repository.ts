import { Inject, Injectable } from '@nestjs/common';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';

/** A position in (retained_until, quote_hash) order: a page starts after it. */
export interface SweepCursor {
  retainedUntil: Date;
  quoteHash: string;
}

export interface ExpiredQuotes {
  /**
   * Quotes whose retention ended before `until`, with no order event and whose last pushed view is
   * not `expired` (or none was pushed), after `after` in (retained_until, quote_hash) order; at most `limit`.
   */
  page(after: SweepCursor, until: Date, limit: number): Promise<SweepCursor[]>;
}

/** Where the sweep of quotes that are no order stands, shared by the replicas (`quote_expiry_sweep`). */
export interface SweepProgress {
  /** Takes (or renews) the lease for `ms`; the cursor to resume from, or undefined while another replica holds it. */
  lease(owner: string, ms: number): Promise<SweepCursor | undefined>;
  /** Every quote up to `cursor` was pushed; false when the lease was lost (the run stops). */
  advance(owner: string, cursor: SweepCursor, ms: number): Promise<boolean>;
  release(owner: string): Promise<void>;
}

export interface UnusedQuotes {
  /** Quotes that are no order, retention ended before `until`, after `after` in (retained_until, quote_hash) order; at most `limit`. */
  page(after: SweepCursor, until: Date, limit: number): Promise<SweepCursor[]>;
}

export const SWEEP_NAME = 'expired';

/**
 * The selection on `orders` (the `retained_until` index bounds each page): orders with no step and
 * no relay failure. Quotes that never became orders are QuoteExpirySweep's.
 */
export function sqlExpiredQuotes(db: PrismaClient): ExpiredQuotes {
  return {
    async page(after, until, limit) {
      const from = after.retainedUntil.toISOString();
      const rows = await db.$queryRaw<{ quote_hash: string; retained_until: Date }[]>`
        SELECT q.quote_hash, q.retained_until FROM orders q
        WHERE q.retained_until >= ${from}::timestamptz AND q.retained_until < ${until.toISOString()}::timestamptz
          AND (q.retained_until > ${from}::timestamptz OR q.quote_hash > ${after.quoteHash})
          AND NOT EXISTS (SELECT 1 FROM order_events e WHERE e.quote_hash = q.quote_hash)
          AND q.status <> 'failed'
          AND NOT EXISTS (SELECT 1 FROM order_view_pushes p WHERE p.quote_hash = q.quote_hash AND p.status = 'expired' AND p.pending IS NULL)
        ORDER BY q.retained_until, q.quote_hash
        LIMIT ${limit}`;
      return rows.map((r) => ({ quoteHash: r.quote_hash, retainedUntil: r.retained_until }));
    },
  };
}

export function sqlSweepProgress(db: PrismaClient): SweepProgress {
  return {
    async lease(owner, ms) {
      const rows = await db.$queryRaw<{ retained_until: Date; quote_hash: string }[]>`UPDATE quote_expiry_sweep
        SET lease_owner = ${owner}, lease_until = now() + make_interval(secs => ${ms / 1000})
        WHERE name = ${SWEEP_NAME} AND (lease_owner IS NULL OR lease_owner = ${owner} OR lease_until < now())
        RETURNING retained_until, quote_hash`;
      const r = rows[0];
      return r ? { retainedUntil: r.retained_until, quoteHash: r.quote_hash } : undefined;
    },
    async advance(owner, cursor, ms) {
      const moved = await db.$executeRaw`UPDATE quote_expiry_sweep
        SET retained_until = ${cursor.retainedUntil}, quote_hash = ${cursor.quoteHash}, lease_until = now() + make_interval(secs => ${ms / 1000})
        WHERE name = ${SWEEP_NAME} AND lease_owner = ${owner}
          AND (retained_until, quote_hash) <= (${cursor.retainedUntil}::timestamptz, ${cursor.quoteHash})`;
      return moved === 1;
    },
    async release(owner) {
      await db.$executeRaw`UPDATE quote_expiry_sweep SET lease_owner = NULL, lease_until = NULL WHERE name = ${SWEEP_NAME} AND lease_owner = ${owner}`;
    },
  };
}

/** The selection on `quotes` (the BRIN index on retained_until bounds each page, the day's partition first of all). */
export function sqlUnusedQuotes(db: PrismaClient): UnusedQuotes {
  return {
    async page(after, until, limit) {
      const rows = await db.$queryRaw<{ quote_hash: string; retained_until: Date }[]>`
        SELECT q.quote_hash, q.retained_until FROM quotes q
        WHERE q.retained_until >= ${after.retainedUntil} AND q.retained_until < ${until}
          AND (q.retained_until > ${after.retainedUntil} OR q.quote_hash > ${after.quoteHash})
          AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.quote_hash = q.quote_hash)
        ORDER BY q.retained_until, q.quote_hash
        LIMIT ${limit}`;
      return rows.map((r) => ({ quoteHash: r.quote_hash, retainedUntil: r.retained_until }));
    },
  };
}

/** `orders` past retention with nothing to show (OrderExpirySweep's pages). */
@Injectable()
export class ExpiredOrdersRepository implements ExpiredQuotes {
  private readonly pages: ExpiredQuotes;

  constructor(@Inject(DB) db: PrismaClient) {
    this.pages = sqlExpiredQuotes(db);
  }

  page(after: SweepCursor, until: Date, limit: number): Promise<SweepCursor[]> {
    return this.pages.page(after, until, limit);
  }
}

/** Quotes that are no order, past retention (UnusedQuoteExpirySweep's pages), and the sweep's shared position. */
@Injectable()
export class UnusedQuotesRepository implements UnusedQuotes, SweepProgress {
  private readonly pages: UnusedQuotes;
  private readonly progress: SweepProgress;

  constructor(@Inject(DB) db: PrismaClient) {
    this.pages = sqlUnusedQuotes(db);
    this.progress = sqlSweepProgress(db);
  }

  page(after: SweepCursor, until: Date, limit: number): Promise<SweepCursor[]> {
    return this.pages.page(after, until, limit);
  }

  lease(owner: string, ms: number): Promise<SweepCursor | undefined> {
    return this.progress.lease(owner, ms);
  }

  advance(owner: string, cursor: SweepCursor, ms: number): Promise<boolean> {
    return this.progress.advance(owner, cursor, ms);
  }

  release(owner: string): Promise<void> {
    return this.progress.release(owner);
  }
}
