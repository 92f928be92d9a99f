import { Controller, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { GetOrderPathParams, GetOrderRpc, SubmitGaslessOrderRequest, SubmitGaslessOrderRpc } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import type { GatewayEnv } from '../env';
import { GATEWAY_ENV } from '../tokens';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../http/caller';
import { validateBody } from '../http/validate';

/** SubmitGaslessOrder (to the gasless-relayer) and the order view (from the quote-engine). */
@Controller('json/v1')
export class OrdersController {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {}

  @Post('gasless/orders')
  @HttpCode(200)
  submit(@Req() req: FastifyRequest) {
    return this.rpc.call(SubmitGaslessOrderRpc, validateBody(SubmitGaslessOrderRequest, req.body), { caller: callerOf(req), timeoutMs: this.env.GASLESS_SUBMIT_TIMEOUT_MS });
  }

  @Get('orders/:quote_hash')
  order(@Param('quote_hash') quoteHash: string, @Req() req: FastifyRequest) {
    return this.rpc.call(GetOrderRpc, validateBody(GetOrderPathParams, { quote_hash: quoteHash }), { caller: callerOf(req) });
  }
}
