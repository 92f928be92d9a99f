import { Inject, Injectable } from '@nestjs/common';
import { LedgerRepository } from '../ledger/ledger.repository';
import { decodeIdCursor, encodeIdCursor, pageSizeOf } from '../referrals/cursor';
import { partnerDepositView } from './deposit-view';

type Kind = 'credit' | 'debit' | 'hold' | 'settle' | 'release';

/**
 * A partner's own funding ledger, newest first: every entry (credits, debits, relay-gas holds,
 * settles, releases) with the available balance right after it, and for a credit that came from
 * an on-chain deposit, that deposit. Amounts are integer USD micros and token base units.
 */
@Injectable()
export class FundingEntriesService {
  constructor(@Inject(LedgerRepository) private readonly ledger: LedgerRepository) {}

  async list(partnerId: string, cursor: string | undefined, pageSize: number | undefined) {
    const size = pageSizeOf(pageSize);
    const before = cursor ? decodeIdCursor('e1', cursor) : undefined;
    const rows = await this.ledger.page(partnerId, before, size + 1);
    const page = rows.slice(0, size);
    const first = page[0];
    const last = page[page.length - 1];
    // The balance after the page's newest entry (one sum), then walked back entry by entry.
    let balance = first ? await this.ledger.balanceUpTo(partnerId, first.id) : 0n;
    const entries = page.map((e) => {
      const view = {
        id: String(e.id),
        kind: e.kind as Kind,
        delta_usd_micros: String(e.deltaUsdMicros),
        amount_usd_micros: String(e.amountUsdMicros),
        balance_usd_micros: String(balance),
        reason: e.reason,
        ...(e.quoteHash !== null ? { quote_hash: e.quoteHash } : {}),
        ...(e.chain !== null ? { chain: e.chain } : {}),
        ...(e.token !== null ? { token: e.token } : {}),
        ...(e.tokenAmount !== null ? { token_amount: e.tokenAmount.toFixed(0) } : {}),
        ...(e.deposit ? { deposit: partnerDepositView(e.deposit) } : {}),
        created_at: e.createdAt.toISOString(),
      };
      balance -= e.deltaUsdMicros;
      return view;
    });
    return { entries, next_cursor: rows.length > size && last ? encodeIdCursor('e1', last.id) : '' };
  }
}
