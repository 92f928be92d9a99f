import { Inject, Injectable } from '@nestjs/common';
import type { PrismaClient, Voucher } from '@xchain/partner-service-db';
import { DB, type Tx } from '../db.providers';

export type { Voucher } from '@xchain/partner-service-db';

/** A referral accrual not in a voucher yet. */
export interface OpenAccrual {
  id: bigint;
  referrer: string;
  chain: string;
  token: string;
  token_symbol: string;
  decimals: number;
  amount: string;
}

export interface NewVoucher {
  id: string;
  partnerId: string;
  chain: string;
  chainId: string;
  routerAddress: string;
  token: string;
  tokenSymbol: string;
  decimals: number;
  referrer: string;
  amount: string;
  signature: string;
  calldata: string;
}

/** Vouchers, and the accruals they take. */
@Injectable()
export class VouchersRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.$transaction(fn, { maxWait: 15_000, timeout: 30_000 });
  }

  /** One issuer per partner at a time: locks the partner's row until the transaction ends. */
  async lockPartner(tx: Tx, partnerId: string): Promise<void> {
    await tx.$queryRaw`SELECT id FROM partners WHERE id = ${partnerId} FOR UPDATE`;
  }

  /** The partner's accruals in no voucher, locked, ordered by (referrer, chain, token, id). */
  openAccruals(tx: Tx, partnerId: string): Promise<OpenAccrual[]> {
    return tx.$queryRaw<OpenAccrual[]>`
      SELECT id, referrer, chain, token, token_symbol, decimals, amount::text AS amount
        FROM referral_accruals WHERE partner_id = ${partnerId} AND voucher_id IS NULL
       ORDER BY referrer, chain, token, id FOR UPDATE`;
  }

  create(tx: Tx, data: NewVoucher): Promise<Voucher> {
    return tx.voucher.create({ data });
  }

  /** Puts the accruals, those still in no voucher, into the voucher. */
  async assignAccruals(tx: Tx, accrualIds: bigint[], voucherId: string): Promise<void> {
    await tx.referralAccrual.updateMany({ where: { id: { in: accrualIds }, voucherId: null }, data: { voucherId } });
  }

  list(partnerId: string): Promise<Voucher[]> {
    return this.db.voucher.findMany({ where: { partnerId }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: 1000 });
  }

  byId(id: string): Promise<Voucher | null> {
    return this.db.voucher.findUnique({ where: { id } });
  }

  owned(partnerId: string, id: string): Promise<Voucher | null> {
    return this.db.voucher.findFirst({ where: { id, partnerId } });
  }

  /** Marks the voucher redeemed unless it already is; false when it was. `redeemedAt` is null when the chain does not tell. */
  async markRedeemed(id: string, redeemTx: string, redeemedAt: Date | null): Promise<boolean> {
    const done = await this.db.voucher.updateMany({ where: { id, redeemed: false }, data: { redeemed: true, redeemTx, redeemedAt } });
    return done.count === 1;
  }
}
