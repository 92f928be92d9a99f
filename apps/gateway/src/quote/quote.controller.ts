import { Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { GetQuoteRequest, GetQuoteRpc, PreviewQuoteRequest, PreviewQuoteRpc } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../http/caller';
import { validateBody } from '../http/validate';

/** PreviewQuote and GetQuote: validate, forward to the quote-engine, return its answer. */
@Controller('json/v1')
export class QuoteController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Post('quote/preview')
  @HttpCode(200)
  preview(@Req() req: FastifyRequest) {
    return this.rpc.call(PreviewQuoteRpc, validateBody(PreviewQuoteRequest, req.body), { caller: callerOf(req) });
  }

  @Post('quote')
  @HttpCode(200)
  quote(@Req() req: FastifyRequest) {
    return this.rpc.call(GetQuoteRpc, validateBody(GetQuoteRequest, req.body), { caller: callerOf(req) });
  }
}
