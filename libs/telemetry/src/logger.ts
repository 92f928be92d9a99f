import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/** Structured JSON logs on stdout; each line carries the active trace and span ids. */
export function createLogger(service: string): Logger {
  return pino({
    name: service,
    level: process.env['LOG_LEVEL'] ?? 'info',
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const ctx = trace.getActiveSpan()?.spanContext();
      return ctx ? { trace_id: ctx.traceId, span_id: ctx.spanId } : {};
    },
    redact: { paths: ['*.authorization', '*["x-api-key"]', '*.secret', '*.token'], censor: '[redacted]' },
  });
}

/** The trace id of the active span, or undefined outside a trace. */
export function activeTraceId(): string | undefined {
  return trace.getActiveSpan()?.spanContext().traceId;
}
