import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import {
  CALLER_HEADER,
  CallerContextSchema,
  Code,
  RpcError,
  errorInfo,
  type CallerContext,
  type RpcAccess,
  type RpcContract,
} from '@xchain/contracts';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { databaseUnavailable, isDatabaseUnavailable } from './database-errors';
import { DatabaseOutage } from './database-outage';
import { decodeJson, errorEnvelope, okEnvelope } from './envelope';
import { extractTraceContext } from './headers';
import { busMetrics, codeNameOf, type BusMetrics } from './metrics';
import { violationsOf } from './zod-violations';

const tracer = trace.getTracer('@xchain/messaging');

/** The partner a `partner` operation acts for: the one of the caller's session, never one named in a body. */
export interface PartnerSession {
  partnerId: string;
  sessionId: string;
}

export interface RpcHandlerContext {
  caller: CallerContext | undefined;
}

/** What a handler knows about its caller: for a `partner` operation, the session's partner too. */
export type RpcHandlerContextFor<A extends RpcAccess> = A extends { access: 'partner' }
  ? RpcHandlerContext & { session: PartnerSession }
  : RpcHandlerContext;

export type RpcHandler<Req extends z.ZodType, Res extends z.ZodType, A extends RpcAccess = RpcAccess> = (
  request: z.output<Req>,
  ctx: RpcHandlerContextFor<A>,
) => Promise<z.input<Res>>;

/**
 * Who may call an operation, checked here and nowhere else (D14). The bus lets only the contract's
 * declared callers publish its subject (bus permissions generated from the same contract), so an
 * `internal` or `operator` request cannot come from anyone else, whatever its `x-caller` header
 * says, and the gateway's caller context can be trusted. What remains to check is which client
 * the gateway acts for: a `partner` operation needs a partner session.
 */
export function authorize(access: RpcAccess, caller: CallerContext | undefined): RpcHandlerContext & { session?: PartnerSession } {
  if (access.access !== 'partner') return { caller };
  if (caller?.kind !== 'partner_session') {
    throw new RpcError(Code.UNAUTHENTICATED, 'a partner session is required', [errorInfo('SESSION_REQUIRED')]);
  }
  return { caller, session: { partnerId: caller.partner_id, sessionId: caller.session_id } };
}

/**
 * Serves contracts over NATS in a queue group (so replicas share the load). Every request is
 * validated before the handler runs and every reply is validated before it leaves; failures
 * become google.rpc.Status envelopes, and nothing a handler throws crashes the service. A handler
 * that fails because the database cannot be reached answers UNAVAILABLE / DATABASE_UNAVAILABLE
 * with RetryInfo (never INTERNAL), and such failures are logged once per outage, not per request
 * (see `databaseOutage`).
 */
export class RpcServer {
  private readonly subs: Subscription[] = [];
  /** This service's database outage tracker; its database provider gives it a probe. */
  readonly databaseOutage: DatabaseOutage;

  constructor(
    private readonly nc: NatsConnection,
    private readonly queue: string,
    private readonly log: Logger,
    /** Where each served request's duration and outcome is recorded (default: the process registry). */
    private readonly metrics: Pick<BusMetrics, 'serverRequests'> = busMetrics(),
  ) {
    this.databaseOutage = new DatabaseOutage(log);
  }

  handle<Req extends z.ZodType, Res extends z.ZodType, A extends RpcAccess>(contract: RpcContract<Req, Res, A>, handler: RpcHandler<Req, Res, A>): void {
    const sub = this.nc.subscribe(contract.subject, {
      queue: this.queue,
      callback: (err, msg) => {
        if (err) {
          this.log.error({ err: err.message, subject: contract.subject }, 'subscription error');
          return;
        }
        void this.dispatch(contract, handler as RpcHandler<Req, Res>, msg);
      },
    });
    this.subs.push(sub);
  }

  private async dispatch<Req extends z.ZodType, Res extends z.ZodType>(
    contract: RpcContract<Req, Res>,
    handler: RpcHandler<Req, Res>,
    msg: Msg,
  ): Promise<void> {
    const parent = extractTraceContext(msg.headers);
    const span = tracer.startSpan(
      `${contract.subject} process`,
      { kind: SpanKind.SERVER, attributes: { 'messaging.system': 'nats', 'messaging.destination.name': contract.subject } },
      parent,
    );
    const started = process.hrtime.bigint();
    await context.with(trace.setSpan(parent, span), async () => {
      let reply: Uint8Array;
      let outcome = 'ok';
      try {
        reply = okEnvelope(await this.run(contract, handler, msg));
        this.databaseOutage.requestSucceeded();
      } catch (err) {
        const dbDown = !(err instanceof RpcError) && isDatabaseUnavailable(err);
        const rpcErr = err instanceof RpcError ? err : dbDown ? databaseUnavailable() : RpcError.internal();
        outcome = codeNameOf(rpcErr);
        if (dbDown) {
          this.databaseOutage.failed(err, contract.subject);
        } else if (!(err instanceof RpcError)) {
          this.log.error({ err: errorText(err), subject: contract.subject }, 'handler failed');
          span.recordException(err instanceof Error ? err : new Error(String(err)));
        }
        span.setAttribute('rpc.grpc.status_code', rpcErr.status.code);
        span.setStatus({ code: SpanStatusCode.ERROR });
        reply = errorEnvelope(rpcErr.status);
      } finally {
        span.end();
      }
      if (msg.reply) msg.respond(reply);
      this.metrics.serverRequests.observe({ subject: contract.subject, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
    });
  }

  private async run<Req extends z.ZodType, Res extends z.ZodType>(
    contract: RpcContract<Req, Res>,
    handler: RpcHandler<Req, Res>,
    msg: Msg,
  ): Promise<unknown> {
    let body: unknown;
    try {
      body = decodeJson(msg.data);
    } catch {
      throw RpcError.invalidArgument([{ field: '(body)', description: 'is not valid JSON' }], 'MALFORMED_JSON');
    }
    const parsed = contract.request.safeParse(body);
    if (!parsed.success) throw RpcError.invalidArgument(violationsOf(parsed.error, body));
    const ctx = authorize(contract.access, parseCaller(msg));
    const result = await handler(parsed.data, ctx);
    const checked = contract.response.safeParse(result);
    if (!checked.success) {
      this.log.error({ subject: contract.subject, issues: checked.error.issues.slice(0, 5) }, 'reply violates contract');
      throw RpcError.internal();
    }
    // Send the input form: the client parses again with the same schema.
    return result;
  }

  async close(): Promise<void> {
    this.databaseOutage.stop();
    for (const sub of this.subs.splice(0)) sub.unsubscribe();
  }
}

function parseCaller(msg: Msg): CallerContext | undefined {
  const raw = msg.headers?.has(CALLER_HEADER) ? msg.headers.get(CALLER_HEADER) : undefined;
  if (!raw) return undefined;
  try {
    const parsed = CallerContextSchema.safeParse(JSON.parse(raw));
    if (parsed.success) return parsed.data;
  } catch {
    // fall through
  }
  throw RpcError.invalidArgument([{ field: CALLER_HEADER, description: 'is not a valid caller context' }]);
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
