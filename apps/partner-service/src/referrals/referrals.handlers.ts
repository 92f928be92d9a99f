import { Controller, Inject } from '@nestjs/common';
import { GetPartnerReferralsRpc } from '@xchain/contracts';
import { Rpc, type RpcBody, type RpcCtx } from '@xchain/messaging';
import { ReferralsService } from './referrals.service';

/** A partner's referral accruals over NATS, for that partner only (D14). */
@Controller()
export class ReferralsHandlers {
  constructor(@Inject(ReferralsService) private readonly referrals: ReferralsService) {}

  @Rpc(GetPartnerReferralsRpc)
  listReferrals(req: RpcBody<typeof GetPartnerReferralsRpc>, ctx: RpcCtx<typeof GetPartnerReferralsRpc>) {
    return this.referrals.groups(ctx.session.partnerId, req.cursor, req.page_size);
  }
}
