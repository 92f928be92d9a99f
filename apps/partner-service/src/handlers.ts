import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
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
import { RpcServer } from '@xchain/messaging';
import { AccountsService } from './accounts/accounts.service';
import { FundingDepositsService } from './funding/funding-deposits.service';
import { FundingService } from './funding/funding.service';
import { LedgerService } from './ledger/ledger.service';
import { ReferralsService } from './referrals/referrals.service';
import { VouchersService } from './vouchers/vouchers.service';

/**
 * Every NATS operation of the partner-service. Who may call each is declared on its contract and
 * enforced by the bus and the RPC server (D14); a partner operation gets its session's partner.
 */
@Injectable()
export class PartnerHandlers implements OnModuleInit {
  constructor(
    @Inject(RpcServer) private readonly rpc: RpcServer,
    @Inject(AccountsService) private readonly accounts: AccountsService,
    @Inject(LedgerService) private readonly ledger: LedgerService,
    @Inject(FundingService) private readonly funding: FundingService,
    @Inject(ReferralsService) private readonly referrals: ReferralsService,
    @Inject(VouchersService) private readonly vouchers: VouchersService,
    @Inject(FundingDepositsService) private readonly deposits: FundingDepositsService,
  ) {}

  onModuleInit(): void {
    // The gateway's credential checks (it sends hashes, never secrets).
    this.rpc.handle(AuthenticateSessionRpc, (req) => this.accounts.authenticateSession(req.token_hash));
    this.rpc.handle(AuthenticateKeyRpc, (req) => this.accounts.authenticateKey(req.key_hash));

    // Partner operations: for the partner of the caller's session only.
    this.rpc.handle(GetPartnerRpc, (_req, ctx) => this.accounts.getPartner(ctx.session.partnerId));
    this.rpc.handle(RevokePartnerSessionRpc, (req, ctx) => this.accounts.revokeSession(ctx.session.partnerId, req.id));
    this.rpc.handle(CreatePartnerKeyRpc, (req, ctx) => this.accounts.createKey(ctx.session.partnerId, req.name));
    this.rpc.handle(DisablePartnerKeyRpc, (req, ctx) => this.accounts.disableKey(ctx.session.partnerId, req.id));
    this.rpc.handle(GetPartnerFundingRpc, (_req, ctx) => this.funding.view(ctx.session.partnerId));
    this.rpc.handle(BuildPartnerFundingRpc, (req, ctx) => this.funding.buildFunding(ctx.session.partnerId, req.token, req.amount));
    this.rpc.handle(ListPartnerVouchersRpc, (_req, ctx) => this.vouchers.list(ctx.session.partnerId));
    this.rpc.handle(BuildVoucherRedemptionRpc, (req, ctx) => this.vouchers.buildRedemption(ctx.session.partnerId, req.voucher_id, req.payer));
    this.rpc.handle(GetPartnerReferralsRpc, (req, ctx) => this.referrals.groups(ctx.session.partnerId, req.cursor, req.page_size));

    // The sponsorship ledger (holds from the relayer, balances for the quote-engine).
    this.rpc.handle(LedgerHoldRpc, (req) => this.ledger.hold(req.partner_id, req.quote_hash, BigInt(req.amount_usd_micros)));
    this.rpc.handle(LedgerSettleRpc, (req) => this.ledger.settle(req.quote_hash, BigInt(req.actual_usd_micros)));
    this.rpc.handle(LedgerReleaseRpc, (req) => this.ledger.release(req.quote_hash));
    this.rpc.handle(LedgerBalanceRpc, async (req) => ({ partner_id: req.partner_id, balance_usd_micros: (await this.ledger.balance(req.partner_id)).toString() }));

    // Operator actions (partner-admin).
    this.rpc.handle(AdminCreatePartnerRpc, (req) => this.accounts.createPartner(req.email, req.max_keys));
    this.rpc.handle(AdminIssueSessionRpc, (req) => this.accounts.issueSession(req.email, req.ttl_secs));
    this.rpc.handle(AdminCreateKeyRpc, async (req) => {
      const partner = await this.accounts.partnerByEmail(req.email);
      return this.accounts.createKey(partner.id, req.name, req.tier);
    });
    this.rpc.handle(AdminSetKeyTierRpc, (req) => this.accounts.setKeyTier(req.key_id, req.tier, req.points_per_min));
    this.rpc.handle(AdminAdjustFundingRpc, async (req) => {
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
    });
    this.rpc.handle(AdminShowPartnerRpc, (req) => this.accounts.showPartner(req.email, req.entries ?? 20));
    this.rpc.handle(AdminDisableKeyRpc, (req) => this.accounts.disableKey(undefined, req.key_id));
    this.rpc.handle(AdminListFundingDepositsRpc, async (req) => {
      const partnerId = req.email ? (await this.accounts.partnerByEmail(req.email)).id : undefined;
      return { deposits: await this.deposits.list({ ...(partnerId ? { partnerId } : {}), ...(req.status ? { status: req.status } : {}), limit: req.limit ?? 50 }) };
    });
    this.rpc.handle(AdminIssueVouchersRpc, async (req) => {
      const partner = await this.accounts.partnerByEmail(req.email);
      return this.vouchers.issue(partner.id);
    });
  }
}
