import { Inject, Injectable } from '@nestjs/common';
import { GetQuoteOp, GetQuoteRpc, PreviewQuoteOp, PreviewQuoteRpc, type HttpOperation, type RpcContract } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { callerOf } from '../http/caller';
import { jsonBytes } from '../http/json-bytes';
import { routeOf } from '../http/route-of';
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
    this.forwardAt(fastify, PreviewQuoteOp, PreviewQuoteRpc);
    this.forwardAt(fastify, GetQuoteOp, GetQuoteRpc);
  }

  /**
   * One route: the body checked against the contract's request schema, then forwarded. The parsed
   * body goes on the bus (as the controller sent it): for a generic schema TypeScript cannot see
   * that a parsed request is also a valid input, hence the cast.
   */
  private forwardAt<Req extends z.ZodType, Res extends z.ZodType>(fastify: FastifyInstance, op: HttpOperation, contract: RpcContract<Req, Res>): void {
    fastify.route({
      method: op.method,
      url: routeOf(op),
      handler: async (req, reply) => {
        const request = validateBody(contract.request, req.body) as z.input<Req>;
        return jsonBytes(reply, await this.rpc.forward(contract, request, { caller: callerOf(req) }));
      },
    });
  }
}
