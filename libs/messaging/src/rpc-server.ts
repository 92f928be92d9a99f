import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { CustomTransportStrategy, MessageHandler } from '@nestjs/microservices';
import { Server } from '@nestjs/microservices';
import {
  CALLER_HEADER,
  CallerContextSchema,
  RpcError,
  type CallerContext,
  type RpcAccess,
  type RpcContract,
  isWireStable,
} from '@xchain/contracts';
import type { Logger } from 'pino';
import { isObservable, lastValueFrom } from 'rxjs';
import type { z } from 'zod';
import { chainRpcFailure, chainRpcUnavailable, type ChainRpcFailure } from './chain-errors';
import { databaseUnavailable, isDatabaseUnavailable } from './database-errors';
import { DatabaseOutage } from './database-outage';
import { DependencyOutage } from './dependency-outage';
import { decodeJson, errorEnvelope, okEnvelope } from './envelope';
import { busSpan, extractTraceContext } from './headers';
import { busMetrics, codeNameOf, type BusMetrics } from './metrics';
import { authorize, NatsRpcContext, type DirectMethod, type RpcContextFor } from './nest/rpc-context';
import { violationsOf } from './zod-violations';

/** The transport's id in Nest (hooks and `getMicroservices()` tell transports apart by it). */
export const NATS_RPC_TRANSPORT = Symbol('xchain-nats-rpc');

/** A handler registered without Nest (`RpcServer.handle`), for fixtures and small tools. */
export type RpcHandler<Req extends z.ZodType, Res extends z.ZodType, A extends RpcAccess = RpcAccess> = (
  request: z.output<Req>,
  ctx: RpcContextFor<A>,
) => Promise<z.input<Res>>;

type BoundHandler = MessageHandler<unknown, NatsRpcContext, unknown> & { extras?: { contract?: RpcContract<z.ZodType, z.ZodType> } };

/**
 * The Nest transport strategy of every service: serves contracts over NATS in a queue group (so
 * replicas share the load). Controller methods bound with `@Rpc(contract)` are its handlers, so
 * Nest's guards, interceptors, pipes and exception filters run around them. Every request is
 * validated against its contract before the handler runs and every reply before it leaves;
 * failures become google.rpc.Status envelopes, and nothing a handler throws crashes the service.
 * A handler that fails because the database cannot be reached answers UNAVAILABLE /
 * DATABASE_UNAVAILABLE with RetryInfo (never INTERNAL), and such failures are logged once per
 * outage, not per request (see `databaseOutage`). Likewise a handler that fails because a chain
 * RPC did not answer (`chainRpcFailure`) answers UNAVAILABLE / CHAIN_RPC_UNAVAILABLE, and each RPC
 * host's outage is one warning and one line when it answers again.
 */
export class RpcServer extends Server implements CustomTransportStrategy {
  override readonly transportId = NATS_RPC_TRANSPORT;
  private readonly subs = new Map<string, Subscription>();
  /** This service's database outage tracker; its database provider gives it a probe. */
  readonly databaseOutage: DatabaseOutage;
  /** The `@Rpc` methods called without Nest's pipeline, by subject (offered by their first request). */
  private readonly direct = new Map<string, DirectMethod>();
  /** One per chain RPC host that failed a request, probed until it answers again. */
  private readonly chainOutages = new Map<string, DependencyOutage>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly queue: string,
    private readonly log: Logger,
    /** Where each served request's duration and outcome is recorded (default: the process registry). */
    private readonly metrics: Pick<BusMetrics, 'serverRequests'> = busMetrics(),
  ) {
    super();
    this.databaseOutage = new DatabaseOutage(log);
  }

  /**
   * Serves one contract with a plain function, outside Nest (fixtures, small tools); the same
   * access check, validation and envelopes apply. Subscribes at once.
   */
  handle<Req extends z.ZodType, Res extends z.ZodType, A extends RpcAccess>(
    contract: RpcContract<Req, Res, A>,
    handler: RpcHandler<Req, Res, A>,
  ): void {
    const bound: BoundHandler = async (request, ctx) => {
      authorize(ctx!);
      return handler(request as z.output<Req>, ctx as RpcContextFor<A>);
    };
    this.addHandler(contract.subject, bound, false, { contract });
    this.subscribe(contract.subject);
  }

  /** Subjects that a second handler was registered for (Nest would silently keep only the last). */
  private readonly boundTwice = new Set<string>();

  override addHandler(pattern: unknown, callback: MessageHandler, isEventHandler = false, extras: Record<string, unknown> = {}): void {
    const key = this.normalizePattern(pattern as string);
    if (this.messageHandlers.has(key)) this.boundTwice.add(key);
    super.addHandler(pattern, callback, isEventHandler, extras);
  }

  /** Nest calls this once its controllers' `@Rpc` methods are registered: one queue subscription per contract. */
  listen(callback: (err?: unknown) => void): void {
    try {
      for (const subject of this.messageHandlers.keys()) this.subscribe(subject);
      callback();
    } catch (err) {
      callback(err);
    }
  }

  private subscribe(subject: string): void {
    if (this.subs.has(subject)) return;
    const handler = this.messageHandlers.get(subject) as BoundHandler | undefined;
    if (handler?.isEventHandler) throw new Error(`${subject}: the NATS RPC transport serves requests only, not @EventPattern handlers`);
    if (this.boundTwice.has(subject)) throw new Error(`${subject} is bound by two handlers`);
    const contract = handler?.extras?.contract;
    if (!handler || !contract) throw new Error(`${subject} is not bound to a contract: declare its handler with @Rpc(contract)`);
    const sub = this.nc.subscribe(subject, {
      queue: this.queue,
      callback: (err, msg) => {
        if (err) {
          this.log.error({ err: err.message, subject }, 'subscription error');
          return;
        }
        void this.dispatch(contract, handler, msg);
      },
    });
    this.subs.set(subject, sub);
  }

  private async dispatch(contract: RpcContract<z.ZodType, z.ZodType>, handler: BoundHandler, msg: Msg): Promise<void> {
    const parent = extractTraceContext(msg.headers);
    // No span of its own when it could not be recorded (`busSpan`): the handler then runs in the
    // caller's context, with its trace id.
    const span = busSpan(contract.subject, 'process', parent);
    const started = process.hrtime.bigint();
    await context.with(span ? trace.setSpan(parent, span) : parent, async () => {
      let reply: Uint8Array;
      let outcome = 'ok';
      try {
        reply = okEnvelope(await this.run(contract, handler, msg));
        this.databaseOutage.requestSucceeded();
        // An RPC whose URL the error did not give cannot be probed: a request that succeeds ends its outage.
        for (const outage of this.chainOutages.values()) if (!outage.probed) outage.succeeded();
      } catch (err) {
        const dbDown = !(err instanceof RpcError) && isDatabaseUnavailable(err);
        const chainDown = err instanceof RpcError || dbDown ? undefined : chainRpcFailure(err);
        const rpcErr =
          err instanceof RpcError
            ? err
            : dbDown
              ? databaseUnavailable()
              : chainDown
                ? chainRpcUnavailable(chainDown.chain)
                : RpcError.internal();
        outcome = codeNameOf(rpcErr);
        if (dbDown) {
          this.databaseOutage.failed(err, contract.subject);
        } else if (chainDown) {
          this.chainOutage(chainDown).failed(err, {
            subject: contract.subject,
            ...(chainDown.chain ? { chain: chainDown.chain } : {}),
            ...(chainDown.host ? { host: chainDown.host } : {}),
            err: chainDown.message,
          });
        } else if (!(err instanceof RpcError)) {
          this.log.error({ err: errorText(err), subject: contract.subject }, 'handler failed');
          span?.recordException(err instanceof Error ? err : new Error(String(err)));
        }
        span?.setAttribute('rpc.grpc.status_code', rpcErr.status.code);
        span?.setStatus({ code: SpanStatusCode.ERROR });
        reply = errorEnvelope(rpcErr.status);
      } finally {
        span?.end();
      }
      if (msg.reply) msg.respond(reply);
      this.metrics.serverRequests.observe({ subject: contract.subject, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
    });
  }

  /** The outage of one RPC host: its warning names the host and the short error, and a JSON-RPC probe notices when it answers again. */
  private chainOutage(failure: ChainRpcFailure): DependencyOutage {
    const key = failure.host ?? failure.chain ?? 'unknown';
    let outage = this.chainOutages.get(key);
    if (!outage) {
      const url = failure.url;
      outage = new DependencyOutage(this.log, `chain RPC ${key}`, url ? { probe: () => probeRpc(url), probeMs: 1000 } : {});
      this.chainOutages.set(key, outage);
    }
    return outage;
  }

  private async run(contract: RpcContract<z.ZodType, z.ZodType>, handler: BoundHandler, msg: Msg): Promise<unknown> {
    let body: unknown;
    try {
      body = decodeJson(msg.data);
    } catch {
      throw RpcError.invalidArgument([{ field: '(body)', description: 'is not valid JSON' }], 'MALFORMED_JSON');
    }
    const parsed = contract.request.safeParse(body);
    if (!parsed.success) throw RpcError.invalidArgument(violationsOf(parsed.error, body));
    const ctx = new NatsRpcContext(contract.subject, parseCaller(msg), msg.headers, contract.access);
    // Nest's pipeline answers a plain value when no interceptor wraps the handler, an observable
    // when one does or when a filter turned a failure into an error stream. A method it adds nothing
    // to is called directly once it was offered (see `Rpc`), after the same access check.
    const direct = this.direct.get(contract.subject);
    if (direct) authorize(ctx);
    let result = direct ? await direct(parsed.data, ctx) : await handler(parsed.data, ctx);
    if (isObservable(result)) result = await lastValueFrom(result);
    if (!direct && ctx.direct) this.direct.set(contract.subject, ctx.direct);
    const checked = contract.response.safeParse(result);
    if (!checked.success) {
      this.log.error({ subject: contract.subject, issues: checked.error.issues.slice(0, 5) }, 'reply violates contract');
      throw RpcError.internal();
    }
    // What was checked is what is sent. A wire-stable reply (no transform anywhere in its schema)
    // goes out as parsed, so keys the contract does not name never leave this service and a client
    // may forward the bytes unparsed (RpcClient.forward); any other goes out in its input form,
    // which the client parses with the same schema.
    return isWireStable(contract.response) ? checked.data : result;
  }

  /** The NATS connection this transport serves on. */
  unwrap<T>(): T {
    return this.nc as T;
  }

  /** The transport emits no events of its own (the connection's status is on the health registry). */
  on(): void {}

  async close(): Promise<void> {
    this.databaseOutage.stop();
    for (const outage of this.chainOutages.values()) outage.stop();
    for (const sub of this.subs.values()) sub.unsubscribe();
    this.subs.clear();
  }
}

/**
 * Callers already read, by their header's text: a gateway sends the same few (one per client
 * address and key) over and over, and each is JSON and a schema check to read. Bounded: emptied
 * when full. Entries are frozen, since every request of that caller shares one.
 */
const CALLERS_KEPT = 4096;
const callers = new Map<string, CallerContext>();

function parseCaller(msg: Msg): CallerContext | undefined {
  const raw = msg.headers?.has(CALLER_HEADER) ? msg.headers.get(CALLER_HEADER) : undefined;
  if (!raw) return undefined;
  const known = callers.get(raw);
  if (known) return known;
  try {
    const parsed = CallerContextSchema.safeParse(JSON.parse(raw));
    if (parsed.success) {
      if (callers.size >= CALLERS_KEPT) callers.clear();
      const caller = Object.freeze(parsed.data);
      callers.set(raw, caller);
      return caller;
    }
  } catch {
    // fall through
  }
  throw RpcError.invalidArgument([{ field: CALLER_HEADER, description: 'is not a valid caller context' }]);
}

/** Any JSON-RPC answer (even an error for the method) means the host answers again. */
async function probeRpc(url: string): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
    signal: AbortSignal.timeout(2000),
  });
  await res.arrayBuffer();
  if (res.status >= 500 || res.status === 429) throw new Error(`HTTP ${res.status}`);
}

/** One bounded line: viem's short message when there is one (its full message quotes the whole request). */
function errorText(err: unknown): string {
  const short = (err as { shortMessage?: unknown } | null)?.shortMessage;
  const text = err instanceof Error ? `${err.name}: ${typeof short === 'string' ? short : err.message}` : String(err);
  return text.slice(0, 1000);
}
