import { Controller, Get, Inject, type OnApplicationBootstrap, type OnApplicationShutdown, Param, Req, Res } from '@nestjs/common';
import { Code, GetOrderPathParams, GetOrderRpc, type OrderUpdate, RpcError, errorInfo } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import { Clock } from '@xchain/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayEnv } from '../env';
import { callerOf } from '../http/caller';
import { validateBody } from '../http/validate';
import { GATEWAY_ENV } from '../tokens';
import { streamOrderEvents } from './order-events-stream';
import { OrderStreamHub } from './order-stream-hub';

/** Retry-After of a refusal because the replica holds its most streams: streams come and go within seconds. */
const STREAMS_FULL_RETRY_SECS = 5;

/**
 * StreamOrderEvents: the one operation that is not one JSON answer, so the one route not built from
 * HTTP_OPERATIONS by OperationRoutes (its path and access still come from the table).
 */
@Controller('json/v1')
export class OrdersController implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    @Inject(OrderStreamHub) private readonly hub: OrderStreamHub,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.hub.start();
  }

  onApplicationShutdown(): void {
    this.hub.stop();
  }

  /**
   * Server-sent events of one order (D13). Everything that can be refused is refused before the
   * stream opens, in the error shape of D2: a malformed or unknown hash, a caller (API key, or
   * client IP without one) that already holds `SSE_MAX_STREAMS_PER_CALLER` streams, and a replica
   * that holds `SSE_MAX_STREAMS_PER_REPLICA` (503, as the caller did nothing wrong).
   */
  @Get('orders/:quote_hash/events')
  async events(@Param('quote_hash') quoteHash: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = validateBody(GetOrderPathParams, { quote_hash: quoteHash });
    const caller = callerOf(req);
    const callerKey =
      caller.kind === 'api_key' ? `key:${caller.key_id}` : caller.kind === 'internal' ? `svc:${caller.service}` : `ip:${caller.client_ip}`;
    // Updates are followed before the first view is read, so none falls between the two.
    const early: OrderUpdate[] = [];
    let deliver: (u: OrderUpdate) => void = (u) => void early.push(u);
    const unfollow = this.hub.follow(callerKey, params.quote_hash, (u) => deliver(u));
    if (unfollow === 'caller_full') {
      const max = String(this.env.SSE_MAX_STREAMS_PER_CALLER);
      throw new RpcError(Code.RESOURCE_EXHAUSTED, `at most ${max} order event streams may be open at once per caller`, [
        errorInfo('TOO_MANY_STREAMS', { max_streams: max }),
      ]);
    }
    if (unfollow === 'replica_full') {
      // Not this caller's doing: the replica is full. Another replica, or this one a little later, may admit it.
      const max = String(this.env.SSE_MAX_STREAMS_PER_REPLICA);
      throw RpcError.unavailable(
        `this gateway holds its most order event streams (${max}); retry shortly`,
        'STREAMS_EXHAUSTED',
        STREAMS_FULL_RETRY_SECS,
        { max_streams: max },
      );
    }
    const fetchView = () => this.rpc.call(GetOrderRpc, params, { caller });
    let first;
    try {
      first = await fetchView();
    } catch (err) {
      unfollow();
      throw err;
    }
    reply.hijack();
    reply.raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const lastEventId = req.headers['last-event-id'];
    let pending: typeof first | undefined = first;
    await streamOrderEvents(reply.raw, {
      fetchView: () => {
        const v = pending;
        pending = undefined;
        return v ? Promise.resolve(v) : fetchView();
      },
      follow: (listener) => {
        deliver = listener;
        for (const u of early.splice(0)) listener(u);
        return unfollow;
      },
      ...(typeof lastEventId === 'string' && lastEventId.length <= 64 ? { lastEventId } : {}),
      heartbeatMs: this.env.SSE_HEARTBEAT_MS,
      maxDurationMs: this.env.SSE_MAX_DURATION_MS,
      retryMs: this.env.SSE_RETRY_MS,
      signal: this.hub.shutdown,
      clock: this.clock,
    });
  }
}
