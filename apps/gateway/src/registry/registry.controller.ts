import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ListChainsRpc, ListTokensRpc, type RpcContract } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { callerOf } from '../http/caller';
import { etagOf, ifNoneMatchHits } from '../http/etag';

/** ListTokens and GetChains: read-only, cacheable by ETag. */
@Controller('json/v1')
export class RegistryController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Get('tokens')
  tokens(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.cacheable(ListTokensRpc, req, reply);
  }

  @Get('chains')
  chains(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.cacheable(ListChainsRpc, req, reply);
  }

  private async cacheable<Res extends z.ZodType>(
    contract: RpcContract<z.ZodType<Record<string, never>>, Res>,
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const result = await this.rpc.call(contract, {}, { caller: callerOf(req) });
    const body = JSON.stringify(result);
    const etag = etagOf(body);
    reply.header('etag', etag).header('cache-control', 'public, max-age=0, must-revalidate');
    if (ifNoneMatchHits(req.headers['if-none-match'], etag)) {
      await reply.status(304).send();
      return;
    }
    await reply.status(200).type('application/json; charset=utf-8').send(body);
  }
}
