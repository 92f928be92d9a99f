import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ListChainsRpc, ListTokensRpc, type RpcContract } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { callerOf } from '../http/caller';
import { etagOf, ifNoneMatchHits } from '../http/etag';

interface Rendered {
  body: string;
  etag: string;
}

/**
 * ListTokens and GetChains: read-only, cacheable by ETag. The lists live in the quote-engine's
 * memory; requests that arrive while one call for the same list is in flight share its answer
 * (one call, one serialisation, one hash for all of them). Nothing is kept once that call ended,
 * so every answer is the quote-engine's list of that moment, and its ETag the hash of that body.
 */
@Controller('json/v1')
export class RegistryController {
  private readonly inFlight = new Map<string, Promise<Rendered>>();
  /** The last body per list and its ETag: an unchanged list is not hashed again. */
  private readonly last = new Map<string, Rendered>();

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
    const { body, etag } = await this.render(contract, req);
    reply.header('etag', etag).header('cache-control', 'public, max-age=0, must-revalidate');
    if (ifNoneMatchHits(req.headers['if-none-match'], etag)) {
      await reply.status(304).send();
      return;
    }
    await reply.status(200).type('application/json; charset=utf-8').send(body);
  }

  private render<Res extends z.ZodType>(contract: RpcContract<z.ZodType<Record<string, never>>, Res>, req: FastifyRequest): Promise<Rendered> {
    const subject = contract.subject;
    let pending = this.inFlight.get(subject);
    if (!pending) {
      pending = this.rpc
        .call(contract, {}, { caller: callerOf(req) })
        .then((result) => {
          const body = JSON.stringify(result);
          const last = this.last.get(subject);
          const rendered = last?.body === body ? last : { body, etag: etagOf(body) };
          this.last.set(subject, rendered);
          return rendered;
        })
        .finally(() => this.inFlight.delete(subject));
      this.inFlight.set(subject, pending);
    }
    return pending;
  }
}
