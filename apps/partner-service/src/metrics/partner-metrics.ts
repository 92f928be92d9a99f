import { Inject, Injectable } from '@nestjs/common';
import type { PrismaClient } from '@xchain/partner-service-db';
import { Metrics, watchChainWatchers } from '@xchain/service-kit';
import { ChainWatchers } from '../chain/chain-watchers';
import { DB } from '../db.providers';
import { SolanaRedemptionsWatcher } from '../vouchers/solana-redemptions-watcher';

/** Longest the holds query may run at scrape time (PostgreSQL cancels it past this). */
export const HOLDS_QUERY_TIMEOUT_MS = 1000;

export interface OutstandingHolds {
  count: bigint;
  usdMicros: bigint;
  /** Unix milliseconds of the oldest open hold; undefined when none is open. */
  oldestAt?: number;
}

/**
 * Sponsorship holds reserved and neither settled nor released, from the ledger. The statement
 * carries its own timeout, so a slow database ends the query instead of leaving it running after
 * the scrape gave up on it.
 */
export async function outstandingHolds(db: Pick<PrismaClient, '$transaction'>, timeoutMs = HOLDS_QUERY_TIMEOUT_MS): Promise<OutstandingHolds> {
  const [row] = await db.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
      return tx.$queryRaw<{ count: string; usd_micros: string; oldest: Date | null }[]>`
        SELECT count(*)::text AS count, COALESCE(SUM(h.amount_usd_micros), 0)::text AS usd_micros, MIN(h.created_at) AS oldest
        FROM ledger_entries h
        WHERE h.kind = 'hold'
          AND NOT EXISTS (SELECT 1 FROM ledger_entries d WHERE d.quote_hash = h.quote_hash AND d.kind IN ('settle', 'release'))`;
    },
    { maxWait: timeoutMs, timeout: timeoutMs + 500 },
  );
  return {
    count: BigInt(row?.count ?? '0'),
    usdMicros: BigInt(row?.usd_micros ?? '0'),
    ...(row?.oldest ? { oldestAt: row.oldest.getTime() } : {}),
  };
}

/** The partner-service's gauges: open ledger holds (from the database, at scrape time) and its chain watchers. */
@Injectable()
export class PartnerMetrics {
  constructor(
    @Inject(Metrics) metrics: Metrics,
    @Inject(DB) db: PrismaClient,
    @Inject(ChainWatchers) watchers: Pick<ChainWatchers, 'watchers'>,
    @Inject(SolanaRedemptionsWatcher) solana: Pick<SolanaRedemptionsWatcher, 'watchers'>,
  ) {
    const count = metrics.gauge({ name: 'ledger_holds_outstanding', help: 'Sponsorship holds reserved and not yet settled or released' });
    const usd = metrics.gauge({ name: 'ledger_holds_outstanding_usd_micros', help: 'USD micros reserved by the outstanding holds' });
    const oldest = metrics.gauge({ name: 'ledger_holds_oldest_age_seconds', help: 'Age of the oldest outstanding hold (0 when none)' });
    metrics.onScrape(
      'ledger_holds',
      async () => {
        const holds = await outstandingHolds(db);
        count.set(Number(holds.count));
        // A float gauge: exact up to 2^53 micros (9 billion USD), an operator's view, never the ledger.
        usd.set(Number(holds.usdMicros));
        oldest.set(holds.oldestAt === undefined ? 0 : Math.max(0, (Date.now() - holds.oldestAt) / 1000));
      },
      HOLDS_QUERY_TIMEOUT_MS + 200,
    );
    watchChainWatchers(metrics, () => [...watchers.watchers, ...solana.watchers]);
  }
}
