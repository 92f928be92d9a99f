import { Inject, Injectable } from '@nestjs/common';
import { GetQuoteOp, GetQuoteRequest, GetQuoteRpc, PreviewQuoteOp, PreviewQuoteRequest, PreviewQuoteRpc } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { routeOf } from '../access/access-hook';
import { callerOf } from '../http/caller';
import { jsonBytes } from '../http/json-bytes';
import { validateBody } from '../http/validate';

/**
 * PreviewQuote and GetQuote: validate, forward to the quote-engine, return its answer as the bytes
 * it sent (validated against the contract by the quote-engine before sending: RpcClient.forward).
 *
 * Served as routes of the gateway's Fastify instance, not through a Nest controller: they are what
 * integrators call in tight loops, and Nest's router spends CPU on every request that these
 * handlers do not need (no guard, interceptor or pipe applies to them). On the 2-core machine a
 * trivial POST route cost about 21 µs of CPU per request on Fastify alone, 26 µs as a route of a
 * Nest app's Fastify instance and 33 µs as a Nest controller method; the gateway spent 74 µs per
 * PreviewQuote with these routes against 81 µs as a controller, and PreviewQuote served 59.5 % of
 * the ceiling against 55.3 % (7 alternating rounds; README, "Benchmarks"). Everything else about a
 * request is unchanged: tracing, CORS, the access check, the rate limit and metrics are Fastify
 * hooks, which run for every route, and what a handler throws reaches Fastify's error handler,
 * which Nest points at its exception filters, so `StatusExceptionFilter` answers it as it answers
 * a controller's.
 */
@Injectable()
export class QuoteRoutes {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  /**
   * Adds the routes to the gateway's Fastify instance (before it starts listening), at the method
   * and path their operations declare, which is also what the access hook looks them up by.
   */
  register(fastify: FastifyInstance): void {
    fastify.route({ method: PreviewQuoteOp.method, url: routeOf(PreviewQuoteOp), handler: (req, reply) => this.preview(req, reply) });
    fastify.route({ method: GetQuoteOp.method, url: routeOf(GetQuoteOp), handler: (req, reply) => this.quote(req, reply) });
  }

  async preview(req: FastifyRequest, reply: FastifyReply): Promise<Buffer> {
    return jsonBytes(reply, await this.rpc.forward(PreviewQuoteRpc, validateBody(PreviewQuoteRequest, req.body), { caller: callerOf(req) }));
  }

  async quote(req: FastifyRequest, reply: FastifyReply): Promise<Buffer> {
    return jsonBytes(reply, await this.rpc.forward(GetQuoteRpc, validateBody(GetQuoteRequest, req.body), { caller: callerOf(req) }));
  }
}
