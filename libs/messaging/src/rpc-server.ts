import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import {
  CALLER_HEADER,
  CallerContextSchema,
  RpcError,
  type CallerContext,
  type RpcContract,
} from '@xchain/contracts';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { decodeJson, errorEnvelope, okEnvelope } from './envelope';
import { extractTraceContext } from './headers';
import { violationsOf } from './zod-violations';

const tracer = trace.getTracer('@xchain/messaging');

export interface RpcHandlerContext {
  caller: CallerContext | undefined;
}

export type RpcHandler<Req extends z.ZodType, Res extends z.ZodType> = (
  request: z.output<Req>,
  ctx: RpcHandlerContext,
) => Promise<z.input<Res>>;

/**
 * Serves contracts over NATS in a queue group (so replicas share the load). Every request is
 * validated before the handler runs and every reply is validated before it leaves; failures
 * become google.rpc.Status envelopes, and nothing a handler throws crashes the service.
 */
export class RpcServer {
  private readonly subs: Subscription[] = [];

  constructor(
    private readonly nc: NatsConnection,
    private readonly queue: string,
    private readonly log: Logger,
  ) {}

  handle<Req extends z.ZodType, Res extends z.ZodType>(contract: RpcContract<Req, Res>, handler: RpcHandler<Req, Res>): void {
    const sub = this.nc.subscribe(contract.subject, {
      queue: this.queue,
      callback: (err, msg) => {
        if (err) {
          this.log.error({ err: err.message, subject: contract.subject }, 'subscription error');
          return;
        }
        void this.dispatch(contract, handler, msg);
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
    await context.with(trace.setSpan(parent, span), async () => {
      let reply: Uint8Array;
      try {
        reply = okEnvelope(await this.run(contract, handler, msg));
      } catch (err) {
        const rpcErr = err instanceof RpcError ? err : RpcError.internal();
        if (!(err instanceof RpcError)) {
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
    const caller = parseCaller(msg);
    const result = await handler(parsed.data, { caller });
    const checked = contract.response.safeParse(result);
    if (!checked.success) {
      this.log.error({ subject: contract.subject, issues: checked.error.issues.slice(0, 5) }, 'reply violates contract');
      throw RpcError.internal();
    }
    // Send the input form: the client parses again with the same schema.
    return result;
  }

  async close(): Promise<void> {
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
