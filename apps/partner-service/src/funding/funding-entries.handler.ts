import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ListPartnerFundingEntriesRpc } from '@xchain/contracts';
import { RpcServer } from '@xchain/messaging';
import { FundingEntriesService } from './funding-entries.service';

/** `GET /v1/partner/funding/entries`: the caller's own ledger only (D14). */
@Injectable()
export class FundingEntriesHandler implements OnModuleInit {
  constructor(
    @Inject(RpcServer) private readonly rpc: RpcServer,
    @Inject(FundingEntriesService) private readonly entries: FundingEntriesService,
  ) {}

  onModuleInit(): void {
    this.rpc.handle(ListPartnerFundingEntriesRpc, (req, ctx) => this.entries.list(ctx.session.partnerId, req.cursor, req.page_size));
  }
}
