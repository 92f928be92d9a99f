import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Req } from '@nestjs/common';
import {
  BuildPartnerFundingRequest,
  BuildPartnerFundingRpc,
  BuildVoucherRedemptionRequest,
  BuildVoucherRedemptionRpc,
  CreateKeyRequest,
  CreatePartnerKeyRpc,
  DeletePartnerWebhookRpc,
  DisablePartnerKeyRpc,
  FundingEntriesQuery,
  GetPartnerWebhookRpc,
  ListPartnerFundingEntriesRpc,
  ListWebhookDeliveriesRpc,
  SetPartnerWebhookRpc,
  SetWebhookRequest,
  WebhookDeliveriesQuery,
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

  @Get('funding/entries')
  fundingEntries(@Req() req: FastifyRequest) {
    return this.rpc.call(ListPartnerFundingEntriesRpc, validateBody(FundingEntriesQuery, req.query ?? {}), { caller: callerOf(req) });
  }

  @Put('webhook')
  @HttpCode(200)
  setWebhook(@Req() req: FastifyRequest) {
    return this.rpc.call(SetPartnerWebhookRpc, validateBody(SetWebhookRequest, req.body), { caller: callerOf(req) });
  }

  @Get('webhook')
  webhook(@Req() req: FastifyRequest) {
    return this.rpc.call(GetPartnerWebhookRpc, {}, { caller: callerOf(req) });
  }

  @Delete('webhook')
  deleteWebhook(@Req() req: FastifyRequest) {
    return this.rpc.call(DeletePartnerWebhookRpc, {}, { caller: callerOf(req) });
  }

  @Get('webhook/deliveries')
  webhookDeliveries(@Req() req: FastifyRequest) {
    return this.rpc.call(ListWebhookDeliveriesRpc, validateBody(WebhookDeliveriesQuery, req.query ?? {}), { caller: callerOf(req) });
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
