import { Controller, Inject } from '@nestjs/common';
import {
  AdminAdjustFundingRpc,
  AdminCreateKeyRpc,
  AdminCreatePartnerRpc,
  AdminDisableKeyRpc,
  AdminIssueSessionRpc,
  AdminIssueVouchersRpc,
  AdminListFundingDepositsRpc,
  AdminSetKeyTierRpc,
  AdminShowPartnerRpc,
  AuthenticateKeyRpc,
  AuthenticateSessionRpc,
  BuildPartnerFundingRpc,
  BuildVoucherRedemptionRpc,
  CreatePartnerKeyRpc,
  DisablePartnerKeyRpc,
  GetPartnerFundingRpc,
  GetPartnerReferralsRpc,
  GetPartnerRpc,
  LedgerBalanceRpc,
  LedgerHoldRpc,
  LedgerReleaseRpc,
  LedgerSettleRpc,
  ListPartnerVouchersRpc,
  RevokePartnerSessionRpc,
  RpcError,
} from '@xchain/contracts';
import { Rpc, type RpcBody, type RpcCtx } from '@xchain/messaging';
import { AccountsService } from './accounts/accounts.service';
import { FundingDepositsService } from './funding/funding-deposits.service';
import { FundingService } from './funding/funding.service';
import { LedgerService } from './ledger/ledger.service';
import { ReferralsService } from './referrals/referrals.service';
import { VouchersService } from './vouchers/vouchers.service';

/**
 * Every NATS operation of the partner-service, one `@Rpc` method per contract. Who may call each is
 * declared on its contract and enforced by the bus and the transport's access guard (D14); a
 * partner operation gets its session's partner.
 */
@Controller()
export class PartnerHandlers {
  constructor(
    @Inject(AccountsService) private readonly accounts: AccountsService,
    @Inject(LedgerService) private readonly ledger: LedgerService,
    @Inject(FundingService) private readonly funding: FundingService,
    @Inject(ReferralsService) private readonly referrals: ReferralsService,
    @Inject(VouchersService) private readonly vouchers: VouchersService,
    @Inject(FundingDepositsService) private readonly deposits: FundingDepositsService,
  ) {}

  // The gateway's credential checks (it sends hashes, never secrets).
  @Rpc(AuthenticateSessionRpc)
  authenticateSession(req: RpcBody<typeof AuthenticateSessionRpc>) {
    return this.accounts.authenticateSession(req.token_hash);
  }

  @Rpc(AuthenticateKeyRpc)
  authenticateKey(req: RpcBody<typeof AuthenticateKeyRpc>) {
    return this.accounts.authenticateKey(req.key_hash);
  }

  // Partner operations: for the partner of the caller's session only.
  @Rpc(GetPartnerRpc)
  getPartner(_req: RpcBody<typeof GetPartnerRpc>, ctx: RpcCtx<typeof GetPartnerRpc>) {
    return this.accounts.getPartner(ctx.session.partnerId);
  }

  @Rpc(RevokePartnerSessionRpc)
  revokeSession(req: RpcBody<typeof RevokePartnerSessionRpc>, ctx: RpcCtx<typeof RevokePartnerSessionRpc>) {
    return this.accounts.revokeSession(ctx.session.partnerId, req.id);
  }

  @Rpc(CreatePartnerKeyRpc)
  createKey(req: RpcBody<typeof CreatePartnerKeyRpc>, ctx: RpcCtx<typeof CreatePartnerKeyRpc>) {
    return this.accounts.createKey(ctx.session.partnerId, req.name);
  }

  @Rpc(DisablePartnerKeyRpc)
  disableKey(req: RpcBody<typeof DisablePartnerKeyRpc>, ctx: RpcCtx<typeof DisablePartnerKeyRpc>) {
    return this.accounts.disableKey(ctx.session.partnerId, req.id);
  }

  @Rpc(GetPartnerFundingRpc)
  getFunding(_req: RpcBody<typeof GetPartnerFundingRpc>, ctx: RpcCtx<typeof GetPartnerFundingRpc>) {
    return this.funding.view(ctx.session.partnerId);
  }

  @Rpc(BuildPartnerFundingRpc)
  buildFunding(req: RpcBody<typeof BuildPartnerFundingRpc>, ctx: RpcCtx<typeof BuildPartnerFundingRpc>) {
    return this.funding.buildFunding(ctx.session.partnerId, req.token, req.amount);
  }

  @Rpc(ListPartnerVouchersRpc)
  listVouchers(_req: RpcBody<typeof ListPartnerVouchersRpc>, ctx: RpcCtx<typeof ListPartnerVouchersRpc>) {
    return this.vouchers.list(ctx.session.partnerId);
  }

  @Rpc(BuildVoucherRedemptionRpc)
  buildRedemption(req: RpcBody<typeof BuildVoucherRedemptionRpc>, ctx: RpcCtx<typeof BuildVoucherRedemptionRpc>) {
    return this.vouchers.buildRedemption(ctx.session.partnerId, req.voucher_id, req.payer);
  }

  @Rpc(GetPartnerReferralsRpc)
  listReferrals(req: RpcBody<typeof GetPartnerReferralsRpc>, ctx: RpcCtx<typeof GetPartnerReferralsRpc>) {
    return this.referrals.groups(ctx.session.partnerId, req.cursor, req.page_size);
  }

  // The sponsorship ledger (holds from the relayer, balances for the quote-engine).
  @Rpc(LedgerHoldRpc)
  hold(req: RpcBody<typeof LedgerHoldRpc>) {
    return this.ledger.hold(req.partner_id, req.quote_hash, BigInt(req.amount_usd_micros));
  }

  @Rpc(LedgerSettleRpc)
  settle(req: RpcBody<typeof LedgerSettleRpc>) {
    return this.ledger.settle(req.quote_hash, BigInt(req.actual_usd_micros));
  }

  @Rpc(LedgerReleaseRpc)
  release(req: RpcBody<typeof LedgerReleaseRpc>) {
    return this.ledger.release(req.quote_hash);
  }

  @Rpc(LedgerBalanceRpc)
  async balance(req: RpcBody<typeof LedgerBalanceRpc>) {
    return { partner_id: req.partner_id, balance_usd_micros: (await this.ledger.balance(req.partner_id)).toString() };
  }

  // Operator actions (partner-admin).
  @Rpc(AdminCreatePartnerRpc)
  adminCreatePartner(req: RpcBody<typeof AdminCreatePartnerRpc>) {
    return this.accounts.createPartner(req.email, req.max_keys);
  }

  @Rpc(AdminIssueSessionRpc)
  adminIssueSession(req: RpcBody<typeof AdminIssueSessionRpc>) {
    return this.accounts.issueSession(req.email, req.ttl_secs);
  }

  @Rpc(AdminCreateKeyRpc)
  async adminCreateKey(req: RpcBody<typeof AdminCreateKeyRpc>) {
    const partner = await this.accounts.partnerByEmail(req.email);
    return this.accounts.createKey(partner.id, req.name, req.tier);
  }

  @Rpc(AdminSetKeyTierRpc)
  adminSetKeyTier(req: RpcBody<typeof AdminSetKeyTierRpc>) {
    return this.accounts.setKeyTier(req.key_id, req.tier, req.points_per_min);
  }

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

  @Rpc(AdminShowPartnerRpc)
  adminShowPartner(req: RpcBody<typeof AdminShowPartnerRpc>) {
    return this.accounts.showPartner(req.email, req.entries ?? 20);
  }

  @Rpc(AdminDisableKeyRpc)
  adminDisableKey(req: RpcBody<typeof AdminDisableKeyRpc>) {
    return this.accounts.disableKey(undefined, req.key_id);
  }

  @Rpc(AdminListFundingDepositsRpc)
  async adminListFundingDeposits(req: RpcBody<typeof AdminListFundingDepositsRpc>) {
    const partnerId = req.email ? (await this.accounts.partnerByEmail(req.email)).id : undefined;
    return { deposits: await this.deposits.list({ ...(partnerId ? { partnerId } : {}), ...(req.status ? { status: req.status } : {}), limit: req.limit ?? 50 }) };
  }

  @Rpc(AdminIssueVouchersRpc)
  async adminIssueVouchers(req: RpcBody<typeof AdminIssueVouchersRpc>) {
    const partner = await this.accounts.partnerByEmail(req.email);
    return this.vouchers.issue(partner.id);
  }
}
