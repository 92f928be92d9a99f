import { Inject, Injectable } from '@nestjs/common';
import { Clock, Metrics, watchChainWatchers } from '@xchain/service-kit';
import { ChainWatchers } from '../chain-watchers';
import { LedgerRepository } from '../ledger/ledger.repository';
import { SolanaRedemptionsWatcher } from '../vouchers/solana-redemptions-watcher';

/** Longest the holds query may run at scrape time (PostgreSQL cancels it past this). */
export const HOLDS_QUERY_TIMEOUT_MS = 1000;

/** The partner-service's gauges: open ledger holds (from the database, at scrape time) and its chain watchers. */
@Injectable()
export class PartnerMetrics {
  constructor(
    @Inject(Metrics) metrics: Metrics,
    @Inject(LedgerRepository) ledger: LedgerRepository,
    @Inject(ChainWatchers) watchers: Pick<ChainWatchers, 'watchers'>,
    @Inject(SolanaRedemptionsWatcher) solana: Pick<SolanaRedemptionsWatcher, 'watchers'>,
    @Inject(Clock) clock: Clock,
  ) {
    const count = metrics.gauge({ name: 'ledger_holds_outstanding', help: 'Sponsorship holds reserved and not yet settled or released' });
    const usd = metrics.gauge({ name: 'ledger_holds_outstanding_usd_micros', help: 'USD micros reserved by the outstanding holds' });
    const oldest = metrics.gauge({ name: 'ledger_holds_oldest_age_seconds', help: 'Age of the oldest outstanding hold (0 when none)' });
    metrics.onScrape(
      'ledger_holds',
      async () => {
        const holds = await ledger.outstandingHolds(HOLDS_QUERY_TIMEOUT_MS);
        count.set(Number(holds.count));
        // A float gauge: exact up to 2^53 micros (9 billion USD), an operator's view, never the ledger.
        usd.set(Number(holds.usdMicros));
        oldest.set(holds.oldestAt === undefined ? 0 : Math.max(0, (clock.nowMs() - holds.oldestAt) / 1000));
      },
      HOLDS_QUERY_TIMEOUT_MS + 200,
    );
    watchChainWatchers(metrics, () => [...watchers.watchers, ...solana.watchers]);
  }
}
