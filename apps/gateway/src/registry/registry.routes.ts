import { Inject, Injectable } from '@nestjs/common';
import type { RpcContract } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { z } from 'zod';
import { callerOf } from '../http/caller';
import { ifNoneMatchHits } from '../http/etag';
import { RegistryLists } from './registry-lists';

/** A list read: no request fields; its answer is kept serialised, with its ETag (RegistryLists). */
type ListContract = RpcContract<z.ZodType, z.ZodType>;

/**
 * ListTokens and GetChains (the cacheable operations): read-only, cacheable by ETag, served from
 * the lists this gateway keeps (RegistryLists): the quote-engine is asked when a list is missing,
 * older than REGISTRY_LIST_MAX_AGE_MS, or dropped because a quote-engine said it changed. Their
 * routes are built with every other one (OperationRoutes); this is how they answer.
 */
@Injectable()
export class RegistryRoutes {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(RegistryLists) private readonly lists: RegistryLists,
  ) {}

  /** The handler of a list read. */
  handler(contract: ListContract): RouteHandlerMethod {
    return (req, reply) => this.cacheable(contract, req, reply);
  }

  private async cacheable(contract: ListContract, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { body, etag } = await this.lists.get(contract.subject, () => this.rpc.call(contract, {}, { caller: callerOf(req) }));
    reply.header('etag', etag).header('cache-control', 'public, max-age=0, must-revalidate');
    if (ifNoneMatchHits(req.headers['if-none-match'], etag)) return reply.status(304).send();
    return reply.status(200).type('application/json; charset=utf-8').send(body);
  }
}
