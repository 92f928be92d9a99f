import { Controller, Inject } from '@nestjs/common';
import {
  AdminAdjustFundingRpc,
  AdminListFundingDepositsRpc,
  BuildPartnerFundingRpc,
  GetPartnerFundingRpc,
  ListPartnerFundingEntriesRpc,
  RpcError,
} from '@xchain/contracts';
import { Rpc, type RpcBody, type RpcCtx } from '@xchain/messaging';
import { AccountsService } from '../accounts/accounts.service';
import { LedgerService } from '../ledger/ledger.service';
import { FundingDepositsService } from './funding-deposits.service';
import { FundingEntriesService } from './funding-entries.service';
import { FundingService } from './funding.service';

/** Funding over NATS: a partner's own view, transactions and ledger (D14), and the operator's credits and deposit list. */
@Controller()
export class FundingHandlers {
  constructor(
    @Inject(FundingService) private readonly funding: FundingService,
    @Inject(FundingEntriesService) private readonly entries: FundingEntriesService,
    @Inject(FundingDepositsService) private readonly deposits: FundingDepositsService,
    @Inject(AccountsService) private readonly accounts: AccountsService,
    @Inject(LedgerService) private readonly ledger: LedgerService,
  ) {}

  @Rpc(GetPartnerFundingRpc)
  getFunding(_req: RpcBody<typeof GetPartnerFundingRpc>, ctx: RpcCtx<typeof GetPartnerFundingRpc>) {
    return this.funding.view(ctx.session.partnerId);
  }

  @Rpc(BuildPartnerFundingRpc)
  buildFunding(req: RpcBody<typeof BuildPartnerFundingRpc>, ctx: RpcCtx<typeof BuildPartnerFundingRpc>) {
    return this.funding.buildFunding(ctx.session.partnerId, req.token, req.amount);
  }

  /** `GET /v1/partner/funding/entries`: the caller's own ledger only. */
  @Rpc(ListPartnerFundingEntriesRpc)
  listEntries(req: RpcBody<typeof ListPartnerFundingEntriesRpc>, ctx: RpcCtx<typeof ListPartnerFundingEntriesRpc>) {
    return this.entries.list(ctx.session.partnerId, req.cursor, req.page_size);
  }

  // Operator actions (partner-admin).
  @Rpc(AdminAdjustFundingRpc)
  async adminAdjustFunding(req: RpcBody<typeof AdminAdjustFundingRpc>) {
    const partner = await this.accounts.partnerByEmail(req.email);
    if ((req.token === undefined) !== (req.amount === undefined)) {
      throw RpcError.invalidArgument([{ field: req.token ? 'amount' : 'token', description: 'token and amount go together' }]);
    }
    return this.ledger.adjust({
      partnerId: partner.id,
      direction: req.direction,
      usdMicros: BigInt(req.usd_micros),
      reason: req.reason,
      ...(req.token && req.amount ? { ...(await this.funding.fundingToken(req.token)), tokenAmount: BigInt(req.amount) } : {}),
    });
  }

  @Rpc(AdminListFundingDepositsRpc)
  async adminListFundingDeposits(req: RpcBody<typeof AdminListFundingDepositsRpc>) {
    const partnerId = req.email ? (await this.accounts.partnerByEmail(req.email)).id : undefined;
    return {
      deposits: await this.deposits.list({
        ...(partnerId ? { partnerId } : {}),
        ...(req.status ? { status: req.status } : {}),
        limit: req.limit ?? 50,
      }),
    };
  }
}
