import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { errors as natsErrors, type NatsConnection } from '@nats-io/transport-node';
import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import {
  CALLER_HEADER,
  Code,
  RPC_CATALOGUE,
  RpcError,
  errorInfo,
  isWireStable,
  type CallerContext,
  type RpcContract,
} from '@xchain/contracts';
import type { Observable } from 'rxjs';
import type { z } from 'zod';
import { encodeJson, okPayloadBytes, openEnvelope } from './envelope';
import { busSpan, injectTraceContext, newHeaders } from './headers';
import { busDown } from './bus-state';
import { ReplyMux } from './reply-mux';
import { busMetrics, clientOutcomeOf, type BusMetrics } from './metrics';

export interface RpcCallOptions {
  caller?: CallerContext;
  /** Overrides the client's default timeout for this call. */
  timeoutMs?: number;
}

type AnyContract = RpcContract<z.ZodType, z.ZodType>;
const CONTRACTS_BY_SUBJECT: ReadonlyMap<string, AnyContract> = new Map(RPC_CATALOGUE.map((c) => [c.subject, c as AnyContract]));

/**
 * The Nest client of the NATS RPC transport: request/reply with an explicit deadline on every
 * call, over the connection's one shared reply subscription (`ReplyMux`). A peer that is not subscribed
 * answers at once (NATS "no responders") → UNAVAILABLE; a slow one → DEADLINE_EXCEEDED. The
 * request is sent as the contract's input form and the reply validated against the contract, so
 * the caller gets typed, trusted data. `call(contract, …)` is the typed promise form every service
 * uses; Nest's `send(contractOrSubject, data)` gives the same call as an observable.
 */
export class RpcClient extends ClientProxy {
  constructor(
    private readonly nc: NatsConnection,
    private readonly defaultTimeoutMs: number,
    /** Where each call's duration and outcome is recorded (default: the process registry). */
    private readonly metrics: Pick<BusMetrics, 'clientCalls'> = busMetrics(),
  ) {
    super();
    busDown(nc); // start following the connection now, so a disconnect before the first call is seen
  }

  /** The connection is made (and owned) by the service's NATS provider. */
  connect(): Promise<NatsConnection> {
    return Promise.resolve(this.nc);
  }

  /** The connection is drained by the service on shutdown, not by its clients. */
  close(): void {}

  unwrap<T>(): T {
    return this.nc as T;
  }

  /** Nest's observable form of `call`: the pattern is a contract or a catalogued subject (so both ends validate). */
  override send<TResult = unknown, TInput = unknown>(pattern: AnyContract | string, data: TInput): Observable<TResult> {
    if (typeof pattern === 'string') return super.send<TResult, TInput>(pattern, data);
    this.sentContracts.set(pattern.subject, pattern);
    return super.send<TResult, TInput>(pattern.subject, data);
  }

  /** Contracts passed to `send` that are not in the catalogue (a test's or a tool's own). */
  private readonly sentContracts = new Map<string, AnyContract>();

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const subject = typeof packet.pattern === 'string' ? packet.pattern : undefined;
    const contract = subject === undefined ? undefined : (CONTRACTS_BY_SUBJECT.get(subject) ?? this.sentContracts.get(subject));
    if (!contract) {
      callback({
        err: new RpcError(Code.INTERNAL, 'internal error', [errorInfo('UNKNOWN_CONTRACT', { subject: String(packet.pattern) })]),
        isDisposed: true,
      });
      return () => undefined;
    }
    this.call(contract, packet.data as never).then(
      (response) => callback({ response, isDisposed: true }),
      (err: unknown) => callback({ err, isDisposed: true }),
    );
    // A NATS request cannot be withdrawn once sent; its deadline bounds it.
    return () => undefined;
  }

  /** Requests are the only pattern of this transport; one-way events go over JetStream (`DurableConsumer`). */
  protected dispatchEvent<T>(packet: ReadPacket): Promise<T> {
    return Promise.reject(new Error(`${String(packet.pattern)}: the NATS RPC client sends requests only`));
  }

  async call<Req extends z.ZodType, Res extends z.ZodType>(
    contract: RpcContract<Req, Res>,
    request: z.input<Req>,
    opts: RpcCallOptions = {},
  ): Promise<z.output<Res>> {
    return this.traced(contract, async () => {
      const parsed = contract.response.safeParse(openEnvelope(await this.exchange(contract, request, opts)));
      if (!parsed.success) throw contractViolation(contract.subject);
      return parsed.data;
    });
  }

  /**
   * `call` for a caller that passes the reply on unchanged (the gateway's quotes and order views):
   * the reply as the JSON bytes the server sent, neither parsed nor validated again. That is sound
   * for a wire-stable response schema (`isWireStable`), which the server sends exactly as it
   * validated it (RpcServer); a reply of any other schema is parsed and checked as `call` does,
   * then serialised. Errors are `call`'s.
   */
  async forward<Req extends z.ZodType, Res extends z.ZodType>(
    contract: RpcContract<Req, Res>,
    request: z.input<Req>,
    opts: RpcCallOptions = {},
  ): Promise<Buffer> {
    if (!isWireStable(contract.response)) return Buffer.from(JSON.stringify(await this.call(contract, request, opts)));
    return this.traced(contract, async () => {
      const data = await this.exchange(contract, request, opts);
      const json = okPayloadBytes(data);
      if (json) return Buffer.from(json.buffer, json.byteOffset, json.byteLength);
      openEnvelope(data); // throws the peer's error
      throw contractViolation(contract.subject);
    });
  }

  /**
   * One client span and one duration-and-outcome observation around a call. No span when it
   * could not be recorded (`busSpan`): the parent's context then travels in the request's
   * `traceparent` (same trace id).
   */
  private async traced<T>(contract: AnyContract, run: () => Promise<T>): Promise<T> {
    const parent = context.active();
    const span = busSpan(contract.subject, 'send', parent);
    const started = process.hrtime.bigint();
    let failure: unknown;
    try {
      return await (span ? context.with(trace.setSpan(parent, span), run) : run());
    } catch (err) {
      failure = err ?? new Error('rejected without a reason');
      const code = err instanceof RpcError ? err.status.code : Code.INTERNAL;
      span?.setAttribute('rpc.grpc.status_code', code);
      span?.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span?.end();
      const secs = Number(process.hrtime.bigint() - started) / 1e9;
      this.metrics.clientCalls.observe({ subject: contract.subject, outcome: clientOutcomeOf(failure) }, secs);
    }
  }

  /** Sends the request (as the contract's input form) and waits for the reply's bytes. */
  private async exchange<Req extends z.ZodType>(
    contract: RpcContract<Req, z.ZodType>,
    request: z.input<Req>,
    opts: RpcCallOptions,
  ): Promise<Uint8Array> {
    if (this.nc.isClosed() || busDown(this.nc)) {
      throw RpcError.unavailable('message bus unavailable', 'BUS_UNAVAILABLE', 2);
    }
    const h = newHeaders();
    injectTraceContext(h);
    if (opts.caller) h.set(CALLER_HEADER, JSON.stringify(opts.caller));
    const timeout = opts.timeoutMs ?? this.defaultTimeoutMs;
    try {
      return (await ReplyMux.of(this.nc).request(contract.subject, encodeJson(request), timeout, h)).data;
    } catch (err) {
      throw mapTransportError(err, contract.subject, timeout);
    }
  }
}

/** The peer broke its contract: an internal fault, never shown to users in detail. */
function contractViolation(subject: string): RpcError {
  return new RpcError(Code.INTERNAL, 'internal error', [errorInfo('CONTRACT_VIOLATION', { subject })]);
}

/** What ReplyMux rejected with, as the caller's RpcError (it raises nats.js's error classes unwrapped). */
function mapTransportError(err: unknown, subject: string, timeoutMs: number): RpcError {
  const service = subject.split('.')[0] ?? subject;
  if (err instanceof natsErrors.PermissionViolationError) {
    // D14: this connection's NATS user may not call that subject (a wiring fault, never the client's).
    return new RpcError(Code.PERMISSION_DENIED, `not allowed to call ${subject}`, [errorInfo('BUS_PERMISSION_DENIED', { subject })]);
  }
  if (err instanceof natsErrors.NoRespondersError) {
    return RpcError.unavailable(`${service} is unavailable`, 'SERVICE_UNAVAILABLE', 1, { service });
  }
  if (err instanceof natsErrors.TimeoutError) {
    return new RpcError(Code.DEADLINE_EXCEEDED, `${service} did not answer within ${timeoutMs} ms`, [
      errorInfo('UPSTREAM_TIMEOUT', { service }),
    ]);
  }
  return RpcError.unavailable('message bus unavailable', 'BUS_UNAVAILABLE');
}
