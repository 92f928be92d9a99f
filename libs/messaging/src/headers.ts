import { SpanKind, TraceFlags, context, isSpanContextValid, propagation, trace, type Context, type Span } from '@opentelemetry/api';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';

/** Writes the active trace context into NATS headers (W3C traceparent/tracestate). */
export function injectTraceContext(h: MsgHdrs, ctx: Context = context.active()): void {
  propagation.inject(ctx, h, { set: (carrier, key, value) => carrier.set(key, value) });
}

/** Reads a trace context from NATS headers; the root context when there is none. */
export function extractTraceContext(h: MsgHdrs | undefined): Context {
  if (!h) return context.active();
  return propagation.extract(context.active(), h, {
    get: (carrier, key) => (carrier.has(key) ? carrier.get(key) : undefined),
    keys: (carrier) => carrier.keys(),
  });
}

export function newHeaders(): MsgHdrs {
  return natsHeaders();
}

const tracer = trace.getTracer('@xchain/messaging');

/**
 * The span of one bus call (`send`, a client span) or of one served request (`process`, a server
 * span), a child of `parent`; none when it could not be recorded (`needsOwnSpan`).
 */
export function busSpan(subject: string, side: 'send' | 'process', parent: Context): Span | undefined {
  if (!needsOwnSpan(parent)) return undefined;
  return tracer.startSpan(
    `${subject} ${side}`,
    {
      kind: side === 'send' ? SpanKind.CLIENT : SpanKind.SERVER,
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject },
    },
    parent,
  );
}

/**
 * Whether a call or a request handled under `ctx` should make a span of its own. Not when `ctx`
 * holds a valid parent that was not sampled and this process's sampler follows its parent: the
 * span would not be recorded, so it would only cost ids and a context. That is every request when
 * nothing is exported (`startTelemetry` installs the always-off sampler) and, with an exporter
 * and the `parentbased_*` samplers docs/operations.md recommends, every request the edge did not sample.
 * The handler then runs in the parent's context: same trace id in log lines, same `traceparent`
 * on the bus. Without a parent (a call from a background job) a span is made, so a trace starts.
 */
export function needsOwnSpan(ctx: Context): boolean {
  const sc = trace.getSpanContext(ctx);
  if (sc === undefined || !isSpanContextValid(sc) || (sc.traceFlags & TraceFlags.SAMPLED) !== 0) return true;
  return !samplerFollowsParent();
}

let followsParent: boolean | undefined;

/**
 * OpenTelemetry's sampler for this process follows an unsampled parent (read once, after
 * `startTelemetry` set its variables): nothing is exported (`OTEL_TRACES_EXPORTER=none`, or the SDK
 * is off), or `OTEL_TRACES_SAMPLER` is `always_off` or one of the `parentbased_*` (the SDK's default
 * is `parentbased_always_on`). `always_on` and a bare `traceidratio` can record a child of an
 * unsampled parent, so under those every call keeps its span.
 */
function samplerFollowsParent(): boolean {
  followsParent ??=
    process.env['OTEL_SDK_DISABLED'] === 'true' ||
    process.env['OTEL_TRACES_EXPORTER'] === 'none' ||
    /^(parentbased_\w+|always_off)$/.test(process.env['OTEL_TRACES_SAMPLER'] ?? 'parentbased_always_on');
  return followsParent;
}
