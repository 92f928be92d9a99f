import { Controller, Inject } from '@nestjs/common';
import {
  AdminCreateKeyRpc,
  AdminCreatePartnerRpc,
  AdminDisableKeyRpc,
  AdminIssueSessionRpc,
  AdminSetKeyTierRpc,
  AdminShowPartnerRpc,
  AuthenticateKeyRpc,
  AuthenticateSessionRpc,
  CreatePartnerKeyRpc,
  DisablePartnerKeyRpc,
  GetPartnerRpc,
  RevokePartnerSessionRpc,
} from '@xchain/contracts';
import { Rpc, type RpcBody, type RpcCtx } from '@xchain/messaging';
import { AccountsService } from './accounts.service';

/**
 * Partners, sessions and API keys over NATS, one `@Rpc` method per contract. Who may call each is
 * declared on its contract and enforced by the bus and the transport's access guard (D14); a
 * partner operation gets its session's partner.
 */
@Controller()
export class AccountsHandlers {
  constructor(@Inject(AccountsService) private readonly accounts: AccountsService) {}

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
  async getPartner(_req: RpcBody<typeof GetPartnerRpc>, ctx: RpcCtx<typeof GetPartnerRpc>) {
    // The session's own id, so a client holding only the token can sign it out (RevokePartnerSession).
    return { ...(await this.accounts.getPartner(ctx.session.partnerId)), session_id: ctx.session.sessionId };
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

  @Rpc(AdminShowPartnerRpc)
  adminShowPartner(req: RpcBody<typeof AdminShowPartnerRpc>) {
    return this.accounts.showPartner(req.email, req.entries ?? 20);
  }

  @Rpc(AdminDisableKeyRpc)
  adminDisableKey(req: RpcBody<typeof AdminDisableKeyRpc>) {
    return this.accounts.disableKey(undefined, req.key_id);
  }
}
