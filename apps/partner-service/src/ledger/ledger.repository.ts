import { Inject, Injectable } from '@nestjs/common';
import { RpcError } from '@xchain/contracts';
import type { LedgerEntry, PrismaClient } from '@xchain/partner-service-db';
import { DB, type Tx } from '../db.providers';

export type { LedgerEntry } from '@xchain/partner-service-db';

/** 100 concurrent holds queue on one partner's row lock; each waits its turn rather than failing. */
const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 };

export type LedgerKind = 'credit' | 'debit' | 'hold' | 'settle' | 'release';

export interface NewLedgerEntry {
  partnerId: string;
  kind: LedgerKind;
  deltaUsdMicros: bigint;
  amountUsdMicros: bigint;
  reason: string;
  quoteHash?: string;
  chain?: string | null;
  token?: string | null;
  tokenAmount?: string | null;
}

export interface OutstandingHolds {
  count: bigint;
  usdMicros: bigint;
  /** Unix milliseconds of the oldest open hold; undefined when none is open. */
  oldestAt?: number;
}

/** The ledger's rows: entries are only ever inserted; a partner's balance is their sum. */
@Injectable()
export class LedgerRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  /** One transaction; every ledger write for a partner in it starts with `lockPartner`. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.$transaction(fn, TX_OPTIONS);
  }

  /** Locks the partner's row until the transaction ends (serialises its ledger writers); NOT_FOUND without one. */
  async lockPartner(tx: Tx, partnerId: string): Promise<void> {
    const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM partners WHERE id = ${partnerId} FOR UPDATE`;
    if (rows.length === 0) throw RpcError.notFound(`no partner ${partnerId}`, 'PARTNER_NOT_FOUND');
  }

  async balance(partnerId: string, tx?: Tx): Promise<bigint> {
    const [row] = await (tx ?? this.db).$queryRaw<{ balance: string }[]>`
      SELECT COALESCE(SUM(delta_usd_micros), 0)::text AS balance FROM ledger_entries WHERE partner_id = ${partnerId}`;
    return BigInt(row?.balance ?? '0');
  }

  /** The balance right after entry `id` (the sum of the partner's entries up to it). */
  async balanceUpTo(partnerId: string, id: bigint): Promise<bigint> {
    const [row] = await this.db.$queryRaw<{ b: string }[]>`
      SELECT COALESCE(SUM(delta_usd_micros), 0)::text AS b FROM ledger_entries WHERE partner_id = ${partnerId} AND id <= ${id}`;
    return BigInt(row?.b ?? '0');
  }

  /** The hold of a quote (lower-case hash), outside any transaction. */
  holdOf(quoteHash: string): Promise<LedgerEntry | null> {
    return this.db.ledgerEntry.findUnique({ where: { quoteHash_kind: { quoteHash, kind: 'hold' } } });
  }

  /** Every entry of a quote (its hold, and its settle or release). */
  entriesOfQuote(tx: Tx, quoteHash: string): Promise<LedgerEntry[]> {
    return tx.ledgerEntry.findMany({ where: { quoteHash } });
  }

  insert(tx: Tx, e: NewLedgerEntry): Promise<LedgerEntry> {
    return tx.ledgerEntry.create({ data: e });
  }

  /** A partner's newest entries, newest first. */
  latest(partnerId: string, take: number): Promise<LedgerEntry[]> {
    return this.db.ledgerEntry.findMany({ where: { partnerId }, orderBy: { id: 'desc' }, take });
  }

  /** A page of a partner's entries older than `before`, newest first, each with the deposit behind it. */
  page(partnerId: string, before: bigint | undefined, take: number) {
    return this.db.ledgerEntry.findMany({
      where: { partnerId, ...(before !== undefined ? { id: { lt: before } } : {}) },
      orderBy: { id: 'desc' },
      take,
      include: { deposit: true },
    });
  }

  /** What each token brought in on a chain: credits that named a token, net of debits that named it. */
  tokenTotals(partnerId: string, chain: string) {
    return this.db.$queryRaw<{ token: string; amount: string; usd_micros: string }[]>`
      SELECT token,
             COALESCE(SUM(CASE WHEN kind = 'credit' THEN token_amount ELSE -token_amount END), 0)::text AS amount,
             COALESCE(SUM(delta_usd_micros), 0)::text AS usd_micros
        FROM ledger_entries
       WHERE partner_id = ${partnerId} AND chain = ${chain} AND token IS NOT NULL AND kind IN ('credit', 'debit')
       GROUP BY token ORDER BY token`;
  }

  /**
   * Sponsorship holds reserved and neither settled nor released. The statement carries its own
   * timeout, so a slow database ends the query instead of leaving it running after the metrics
   * scrape gave up on it.
   */
  async outstandingHolds(timeoutMs: number): Promise<OutstandingHolds> {
    const [row] = await this.db.$transaction(
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
}
