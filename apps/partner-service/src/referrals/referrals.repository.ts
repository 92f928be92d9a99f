import { Inject, Injectable } from '@nestjs/common';
import { Prisma, type PrismaClient, type ReferralAccrual } from '@xchain/partner-service-db';
import { DB, type Tx } from '../db.providers';
import type { GroupKey } from './cursor';

export interface NewAccrual {
  partnerId: string;
  quoteHash: string;
  referrer: string;
  chain: string;
  chainId: string;
  token: string;
  tokenSymbol: string;
  decimals: number;
  amount: string;
  fulfilChain: string;
  fulfilTxHash: string;
  fulfilLogIndex: number | null;
  fulfilBlockHash: string | null;
}

/** Where an order's accruals stand: the fulfilment (chain event) that made them. */
export interface FulfilColumns {
  fulfilChain: string;
  fulfilTxHash: string;
  fulfilLogIndex: number | null;
  fulfilBlockHash: string | null;
}

export interface Withdrawal {
  quoteHash: string;
  chain: string;
  txHash: string;
  logIndex: number | null;
  blockHash: string | null;
  reversed: number;
  kept: number;
}

/** One (referrer, chain, token) of a partner's accruals, summed. */
export interface AccrualGroup {
  referrer: string;
  chain: string;
  chain_id: string;
  token: string;
  token_symbol: string;
  decimals: number;
  amount: string;
  count: string;
}

/** Referral accruals and the reorg withdrawals of the fulfilments that made them. */
@Injectable()
export class ReferralsRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.$transaction(fn);
  }

  /** Accruals and withdrawals of one order are written one at a time (replicas share the consumer). */
  async lockOrder(tx: Tx, quoteHash: string): Promise<void> {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`referrals:${quoteHash}`}))`;
  }

  withdrawals(quoteHash: string, tx?: Tx) {
    return (tx ?? this.db).referralWithdrawal.findMany({ where: { quoteHash } });
  }

  recordWithdrawal(tx: Tx, w: Withdrawal): Promise<unknown> {
    return tx.referralWithdrawal.create({ data: w });
  }

  /** Inserts the accruals, skipping any (quote, referrer) that exists; how many were new. */
  async insertAccruals(tx: Tx, rows: NewAccrual[]): Promise<number> {
    return (await tx.referralAccrual.createMany({ data: rows, skipDuplicates: true })).count;
  }

  /** Every accrual of the order now stands on this fulfilment. */
  async moveAccruals(tx: Tx, quoteHash: string, step: FulfilColumns): Promise<void> {
    await tx.referralAccrual.updateMany({ where: { quoteHash }, data: step });
  }

  accrualsOfOrder(tx: Tx, quoteHash: string): Promise<ReferralAccrual[]> {
    return tx.referralAccrual.findMany({ where: { quoteHash } });
  }

  /** Deletes those of the accruals still in no voucher; how many. */
  async deleteOpenAccruals(tx: Tx, ids: bigint[]): Promise<number> {
    return (await tx.referralAccrual.deleteMany({ where: { id: { in: ids }, voucherId: null } })).count;
  }

  /** Up to `limit` groups of the partner after `after`, in (referrer, chain, token) order. */
  groups(partnerId: string, after: GroupKey | undefined, limit: number): Promise<AccrualGroup[]> {
    const position = after ? Prisma.sql`AND (referrer, chain, token) > (${after.referrer}, ${after.chain}, ${after.token})` : Prisma.empty;
    return this.db.$queryRaw<AccrualGroup[]>`
      SELECT referrer, chain, MIN(chain_id) AS chain_id, token, MIN(token_symbol) AS token_symbol, MIN(decimals) AS decimals,
             SUM(amount)::text AS amount, COUNT(*)::text AS count
        FROM referral_accruals
       WHERE partner_id = ${partnerId} ${position}
       GROUP BY referrer, chain, token
       ORDER BY referrer, chain, token
       LIMIT ${limit}`;
  }
}
