import { Controller, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { GetOrderPathParams, GetOrderRpc, SubmitGaslessOrderRequest, SubmitGaslessOrderRpc } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../http/caller';
import { validateBody } from '../http/validate';

/** SubmitGaslessOrder (to the gasless-relayer) and the order view (from the quote-engine). */
@Controller('json/v1')
export class OrdersController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Post('gasless/orders')
  @HttpCode(200)
  submit(@Req() req: FastifyRequest) {
    return this.rpc.call(SubmitGaslessOrderRpc, validateBody(SubmitGaslessOrderRequest, req.body), { caller: callerOf(req) });
  }

  @Get('orders/:quote_hash')
  order(@Param('quote_hash') quoteHash: string, @Req() req: FastifyRequest) {
    return this.rpc.call(GetOrderRpc, validateBody(GetOrderPathParams, { quote_hash: quoteHash }), { caller: callerOf(req) });
  }
}
