import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { GetQuoteRequest, GetQuoteRpc, PreviewQuoteRequest, PreviewQuoteRpc } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../http/caller';
import { jsonBytes } from '../http/json-bytes';
import { validateBody } from '../http/validate';

/**
 * PreviewQuote and GetQuote: validate, forward to the quote-engine, return its answer as the bytes
 * it sent (validated against the contract by the quote-engine before sending: RpcClient.forward).
 */
@Controller('json/v1')
export class QuoteController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Post('quote/preview')
  @HttpCode(200)
  async preview(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return jsonBytes(reply, await this.rpc.forward(PreviewQuoteRpc, validateBody(PreviewQuoteRequest, req.body), { caller: callerOf(req) }));
  }

  @Post('quote')
  @HttpCode(200)
  async quote(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return jsonBytes(reply, await this.rpc.forward(GetQuoteRpc, validateBody(GetQuoteRequest, req.body), { caller: callerOf(req) }));
  }
}
