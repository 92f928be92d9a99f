import { Inject, Injectable } from '@nestjs/common';
import { GetChainsOp, ListChainsRpc, ListTokensOp, ListTokensRpc, type HttpOperation, type RpcContract } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { callerOf } from '../http/caller';
import { ifNoneMatchHits } from '../http/etag';
import { routeOf } from '../http/route-of';
import { RegistryLists } from './registry-lists';

/** A list read: no request fields; its answer is kept serialised, with its ETag (RegistryLists). */
type ListContract = RpcContract<z.ZodType<Record<string, never>>, z.ZodType>;

/**
 * ListTokens and GetChains: read-only, cacheable by ETag, served from the lists this gateway keeps
 * (RegistryLists): the quote-engine is asked when a list is missing, older than
 * REGISTRY_LIST_MAX_AGE_MS, or dropped because a quote-engine said it changed.
 *
 * Routes of the gateway's Fastify instance, not a Nest controller, for the reason quote.routes.ts
 * gives: Nest's router does work on every request that these handlers do not need. Served from
 * memory, these two are the cheapest reads the gateway has, so that work was a large part of them
 * (README, "Benchmarks").
 */
@Injectable()
export class RegistryRoutes {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(RegistryLists) private readonly lists: RegistryLists,
  ) {}

  /** Adds the routes to the gateway's Fastify instance, at the method and path their operations declare. */
  register(fastify: FastifyInstance): void {
    this.serveAt(fastify, ListTokensOp, ListTokensRpc);
    this.serveAt(fastify, GetChainsOp, ListChainsRpc);
  }

  private serveAt(fastify: FastifyInstance, op: HttpOperation, contract: ListContract): void {
    fastify.route({ method: op.method, url: routeOf(op), handler: (req, reply) => this.cacheable(contract, req, reply) });
  }

  private async cacheable(contract: ListContract, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { body, etag } = await this.lists.get(contract.subject, () => this.rpc.call(contract, {}, { caller: callerOf(req) }));
    reply.header('etag', etag).header('cache-control', 'public, max-age=0, must-revalidate');
    if (ifNoneMatchHits(req.headers['if-none-match'], etag)) return reply.status(304).send();
    return reply.status(200).type('application/json; charset=utf-8').send(body);
  }
}
