import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import {
  BuildPartnerFundingRequest,
  BuildPartnerFundingRpc,
  BuildVoucherRedemptionRequest,
  BuildVoucherRedemptionRpc,
  CreateKeyRequest,
  CreatePartnerKeyRpc,
  DisablePartnerKeyRpc,
  GetPartnerFundingRpc,
  GetPartnerReferralsRpc,
  GetPartnerRpc,
  ListPartnerVouchersRpc,
  ReferralsQuery,
  RevokePartnerSessionRpc,
} from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../http/caller';
import { validateBody } from '../http/validate';

/**
 * Partner operations. The access hook has already checked the bearer session; the caller context
 * it set names the partner, and the partner-service acts for that partner only.
 */
@Controller('json/v1/partner')
export class PartnerController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Get()
  partner(@Req() req: FastifyRequest) {
    return this.rpc.call(GetPartnerRpc, {}, { caller: callerOf(req) });
  }

  @Get('funding')
  funding(@Req() req: FastifyRequest) {
    return this.rpc.call(GetPartnerFundingRpc, {}, { caller: callerOf(req) });
  }

  @Post('funding/tx')
  @HttpCode(200)
  buildFunding(@Req() req: FastifyRequest) {
    return this.rpc.call(BuildPartnerFundingRpc, validateBody(BuildPartnerFundingRequest, req.body), { caller: callerOf(req) });
  }

  @Get('vouchers')
  vouchers(@Req() req: FastifyRequest) {
    return this.rpc.call(ListPartnerVouchersRpc, {}, { caller: callerOf(req) });
  }

  @Post('vouchers/redemption')
  @HttpCode(200)
  redemption(@Req() req: FastifyRequest) {
    return this.rpc.call(BuildVoucherRedemptionRpc, validateBody(BuildVoucherRedemptionRequest, req.body), { caller: callerOf(req) });
  }

  @Get('referrals')
  referrals(@Req() req: FastifyRequest) {
    return this.rpc.call(GetPartnerReferralsRpc, validateBody(ReferralsQuery, req.query ?? {}), { caller: callerOf(req) });
  }

  @Delete('sessions/:id')
  revoke(@Req() req: FastifyRequest, @Param('id') id: string) {
    return this.rpc.call(RevokePartnerSessionRpc, { id }, { caller: callerOf(req) });
  }

  @Post('keys')
  @HttpCode(200)
  createKey(@Req() req: FastifyRequest) {
    return this.rpc.call(CreatePartnerKeyRpc, validateBody(CreateKeyRequest, req.body), { caller: callerOf(req) });
  }

  @Post('keys/:id/disable')
  @HttpCode(200)
  disableKey(@Req() req: FastifyRequest, @Param('id') id: string) {
    return this.rpc.call(DisablePartnerKeyRpc, { id }, { caller: callerOf(req) });
  }
}
