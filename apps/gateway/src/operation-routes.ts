import { Inject, Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { HTTP_OPERATIONS, type HttpOperation, type HttpOperationId, PARTNER_ORDER_CSV_COLUMNS } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { GatewayEnv } from './env';
import { IDEMPOTENCY_KEY_HEADER, idempotentHandler } from './idempotency/idempotent-route';
import { IdempotencyGuard } from './idempotency/idempotency.providers';
import { RegistryRoutes } from './registry/registry.routes';
import { GATEWAY_ENV } from './tokens';
import { callerOf } from './http/caller';
import { csvLine } from './http/csv';
import { jsonBytes } from './http/json-bytes';
import { routeOf } from './http/route-of';
import { httpErrors, sendStatus } from './http/status-reply';
import { validateBody } from './http/validate';

/** How the gateway serves an operation beyond what its entry in HTTP_OPERATIONS says. */
interface RouteOptions {
  /**
   * Answer with the bytes the service sent (RpcClient.forward) instead of parsing and serialising
   * the reply again: the quotes and the order view, which integrators call in tight loops.
   */
  readonly bytes?: boolean;
  /** A deadline other than NATS_REQUEST_TIMEOUT_MS. */
  readonly timeoutMs?: (env: GatewayEnv) => number;
}

const ROUTE_OPTIONS: Partial<Record<HttpOperationId, RouteOptions>> = {
  PreviewQuote: { bytes: true },
  GetQuote: { bytes: true },
  GetOrder: { bytes: true },
  // The relayer simulates and sends before it answers.
  SubmitGaslessOrder: { timeoutMs: (env) => env.GASLESS_SUBMIT_TIMEOUT_MS },
};

type Input = (req: FastifyRequest) => unknown;

interface CsvPage {
  rows: string[][];
  next_cursor: string;
  resume_cursor?: string;
}

/**
 * The RPC request of an operation: its path parameters, query and body, each parsed with the
 * operation's schema (INVALID_ARGUMENT naming every bad field), merged; `{}` when it has none.
 * `defineOperation` checks at compile time that this fits the RPC's request schema.
 */
export function inputOf(op: HttpOperation): Input {
  const parts: Input[] = [];
  const { pathParams, query, body } = op;
  if (pathParams) parts.push((req) => validateBody(pathParams, req.params));
  if (query) parts.push((req) => validateBody(query, req.query ?? {}));
  if (body) parts.push((req) => validateBody(body, req.body));
  const [only] = parts;
  if (!only) return () => ({});
  if (parts.length === 1) return only;
  return (req) => Object.assign({}, ...parts.map((part) => part(req)));
}

/**
 * Every route of HTTP_OPERATIONS, built here from the table: the method and path it declares (which
 * is also what the access hook finds the operation by), its inputs validated with its schemas, the
 * caller the access hook established, and its RPC called. The exceptions are the order event stream,
 * which is not one JSON answer (OrdersController), and the cacheable lists, served from what this
 * gateway keeps (RegistryRoutes).
 *
 * Routes of the gateway's Fastify instance, not Nest controllers: Nest's router does work on every
 * request that these handlers do not need (no guard, interceptor or pipe applies to them). Nothing
 * else about a request changes: tracing, CORS, the access check, the rate limit and metrics are
 * Fastify hooks, which run for every route, and what a handler throws reaches Fastify's error
 * handler, which Nest points at its exception filters, so `StatusExceptionFilter` answers it.
 */
@Injectable()
export class OperationRoutes {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    @Inject(RegistryRoutes) private readonly registry: RegistryRoutes,
    @Inject(IdempotencyGuard) private readonly idempotency: IdempotencyGuard,
  ) {}

  /** Adds the routes to the gateway's Fastify instance, before it starts listening. */
  register(fastify: FastifyInstance): void {
    for (const op of HTTP_OPERATIONS as readonly HttpOperation[]) {
      if (op.eventStream) continue;
      fastify.route({ method: op.method, url: routeOf(op), handler: this.handlerOf(op) });
    }
  }

  private handlerOf(op: HttpOperation): RouteHandlerMethod {
    if (!op.served) return (_req, reply) => sendStatus(reply, httpErrors.unimplemented(op.operationId));
    if (op.csv) return this.csvHandler(op);
    if (op.cacheable) {
      if (op.pathParams || op.query || op.body) throw new Error(`${op.operationId}: a cacheable list takes no input`);
      return this.registry.handler(op.rpc);
    }
    const { rpc } = this;
    const contract = op.rpc;
    const input = inputOf(op);
    const options = ROUTE_OPTIONS[op.operationId as HttpOperationId] ?? {};
    const timeoutMs = options.timeoutMs?.(this.env);
    const plain: RouteHandlerMethod = options.bytes
      ? async (req, reply) => jsonBytes(reply, await rpc.forward(contract, input(req), { caller: callerOf(req), timeoutMs }))
      : async (req) => rpc.call(contract, input(req), { caller: callerOf(req), timeoutMs });
    if (!op.idempotent) return plain;
    // With an Idempotency-Key the idempotency handler sends the answer (a replay is stored bytes);
    // without one the request is served as any other, with no Redis round-trip.
    const run = options.bytes
      ? (req: FastifyRequest) => rpc.forward(contract, input(req), { caller: callerOf(req), timeoutMs })
      : (req: FastifyRequest) => rpc.call(contract, input(req), { caller: callerOf(req), timeoutMs });
    const guarded = idempotentHandler(op.operationId, run, input, this.idempotency.deps);
    return function (req, reply) {
      return req.headers[IDEMPOTENCY_KEY_HEADER] === undefined ? plain.call(this, req, reply) : guarded(req, reply);
    };
  }

  /**
   * A CSV export: the first page is read before anything is sent, so a refusal (a bad cursor, the
   * service down) is still the usual JSON error; then pages are read as the client takes the rows
   * (a stream pulls the next page only when the previous one is written), up to CSV_EXPORT_MAX_ROWS.
   * An error after that ends the response early.
   */
  private csvHandler(op: HttpOperation): RouteHandlerMethod {
    const { rpc } = this;
    const contract = op.rpc;
    const input = inputOf(op);
    const maxRows = this.env.CSV_EXPORT_MAX_ROWS;
    return async (req, reply) => {
      const query = input(req) as Record<string, unknown>;
      const caller = callerOf(req);
      const page = (cursor?: string) =>
        rpc.call(contract, { ...query, ...(cursor !== undefined ? { cursor } : { max_rows: maxRows }) }, { caller }) as Promise<CsvPage>;
      const first = await page();
      reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${op.operationId}.csv"`);
      if (first.resume_cursor) reply.header('x-next-cursor', first.resume_cursor);
      async function* lines(): AsyncGenerator<string> {
        yield csvLine(PARTNER_ORDER_CSV_COLUMNS);
        let current = first;
        let sent = 0;
        for (;;) {
          const rows = current.rows.slice(0, maxRows - sent);
          sent += rows.length;
          if (rows.length > 0) yield rows.map(csvLine).join('');
          if (!current.next_cursor || sent >= maxRows) return;
          current = await page(current.next_cursor);
        }
      }
      return reply.send(Readable.from(lines()));
    };
  }
}
