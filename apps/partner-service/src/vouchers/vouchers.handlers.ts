import { Controller, Inject } from '@nestjs/common';
import { AdminIssueVouchersRpc, BuildVoucherRedemptionRpc, ListPartnerVouchersRpc } from '@xchain/contracts';
import { Rpc, type RpcBody, type RpcCtx } from '@xchain/messaging';
import { AccountsService } from '../accounts/accounts.service';
import { VouchersService } from './vouchers.service';

/** Vouchers over NATS: a partner's own (D14), and the operator's issuing. */
@Controller()
export class VouchersHandlers {
  constructor(
    @Inject(VouchersService) private readonly vouchers: VouchersService,
    @Inject(AccountsService) private readonly accounts: AccountsService,
  ) {}

  @Rpc(ListPartnerVouchersRpc)
  listVouchers(_req: RpcBody<typeof ListPartnerVouchersRpc>, ctx: RpcCtx<typeof ListPartnerVouchersRpc>) {
    return this.vouchers.list(ctx.session.partnerId);
  }

  @Rpc(BuildVoucherRedemptionRpc)
  buildRedemption(req: RpcBody<typeof BuildVoucherRedemptionRpc>, ctx: RpcCtx<typeof BuildVoucherRedemptionRpc>) {
    return this.vouchers.buildRedemption(ctx.session.partnerId, req.voucher_id, req.payer);
  }

  @Rpc(AdminIssueVouchersRpc)
  async adminIssueVouchers(req: RpcBody<typeof AdminIssueVouchersRpc>) {
    const partner = await this.accounts.partnerByEmail(req.email);
    return this.vouchers.issue(partner.id);
  }
}
