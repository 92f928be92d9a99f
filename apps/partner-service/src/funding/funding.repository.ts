import { Inject, Injectable } from '@nestjs/common';
import type { FundingDeposit, Prisma, PrismaClient } from '@xchain/partner-service-db';
import { DB, type Tx, uniqueOrThrow } from '../db.providers';

export type { FundingDeposit } from '@xchain/partner-service-db';

export type NewFundingDeposit = Prisma.FundingDepositUncheckedCreateInput;

/** Funding transactions built for partners (their funding ids) and the deposits the chain reported. */
@Injectable()
export class FundingRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  async createIntent(data: { id: string; partnerId: string; chain: string; token: string; amount: string }): Promise<void> {
    await this.db.fundingIntent.create({ data });
  }

  intent(fundingId: string): Promise<{ partnerId: string; chain: string } | null> {
    return this.db.fundingIntent.findUnique({ where: { id: fundingId } });
  }

  depositAt(chain: string, txHash: string, logIndex: number): Promise<FundingDeposit | null> {
    return this.db.fundingDeposit.findUnique({ where: { chain_txHash_logIndex: { chain, txHash, logIndex } } });
  }

  /** Records a deposit (in `tx` when given); `UniqueViolation` when that event is recorded already. */
  async insertDeposit(data: NewFundingDeposit, tx?: Tx): Promise<void> {
    await uniqueOrThrow((tx ?? this.db).fundingDeposit.create({ data }));
  }

  /** Newest first, each with its partner's email. */
  deposits(filter: { partnerId?: string; status?: 'credited' | 'unmatched'; limit: number }) {
    return this.db.fundingDeposit.findMany({
      where: { ...(filter.partnerId ? { partnerId: filter.partnerId } : {}), ...(filter.status ? { status: filter.status } : {}) },
      orderBy: { id: 'desc' },
      take: filter.limit,
      include: { partner: { select: { email: true } } },
    });
  }
}
