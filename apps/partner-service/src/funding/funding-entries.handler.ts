import { Controller, Inject } from '@nestjs/common';
import { ListPartnerFundingEntriesRpc } from '@xchain/contracts';
import { Rpc, type RpcBody, type RpcCtx } from '@xchain/messaging';
import { FundingEntriesService } from './funding-entries.service';

/** `GET /v1/partner/funding/entries`: the caller's own ledger only (D14). */
@Controller()
export class FundingEntriesHandler {
  constructor(@Inject(FundingEntriesService) private readonly entries: FundingEntriesService) {}

  @Rpc(ListPartnerFundingEntriesRpc)
  list(req: RpcBody<typeof ListPartnerFundingEntriesRpc>, ctx: RpcCtx<typeof ListPartnerFundingEntriesRpc>) {
    return this.entries.list(ctx.session.partnerId, req.cursor, req.page_size);
  }
}
