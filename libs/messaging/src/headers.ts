import { context, propagation, type Context } from '@opentelemetry/api';
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
