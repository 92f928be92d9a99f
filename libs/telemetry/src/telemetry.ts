import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, NoopSpanProcessor } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry for a service. Must run before anything that it instruments (http, pg) is
 * loaded, which is why every main.ts imports its `instrument.ts` first.
 *
 * Export follows the standard OTEL_* variables. Unlike the SDK default, nothing is exported when
 * neither OTEL_TRACES_EXPORTER nor an OTLP endpoint is set, so a local stack without a collector
 * does not log export failures forever.
 */
export interface TelemetryOptions {
  /**
   * Load OpenTelemetry's HttpInstrumentation (server and client spans of node:http). Default true.
   * The gateway turns it off and makes its server spans in Fastify hooks (apps/gateway's
   * http-tracing.ts), which costs a fraction of the per-request work.
   */
  instrumentHttp?: boolean;
}

export function startTelemetry(serviceName: string, opts: TelemetryOptions = {}): void {
  if (sdk || process.env['OTEL_SDK_DISABLED'] === 'true') return;
  const otlpConfigured =
    process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] !== undefined || process.env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] !== undefined;
  if (process.env['OTEL_TRACES_EXPORTER'] === undefined) {
    process.env['OTEL_TRACES_EXPORTER'] = otlpConfigured ? 'otlp' : 'none';
  }
  // With no exporter the SDK would install no tracer provider at all, and trace ids (in logs and
  // in x-request-id) would vanish; a no-op processor keeps real ids while exporting nothing. Spans
  // that nobody exports are not recorded either (the sampler says no: ids and propagation stay,
  // attributes and events are never built). With an exporter, OTEL_TRACES_SAMPLER decides
  // (docs/operations.md, Traces).
  const exportNothing = process.env['OTEL_TRACES_EXPORTER'] === 'none';
  process.env['OTEL_METRICS_EXPORTER'] ??= 'none';
  process.env['OTEL_LOGS_EXPORTER'] ??= 'none';
  sdk = new NodeSDK({
    ...(exportNothing ? { spanProcessors: [new NoopSpanProcessor()], sampler: new AlwaysOffSampler() } : {}),
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: process.env['OTEL_SERVICE_NAME'] ?? serviceName }),
    // With nothing to export, node:http is not instrumented: it would wrap every call for spans the
    // sampler then drops, and trace ids and their propagation on the bus do not depend on it. The
    // pg instrumentation stays even then: without it the quote-engine's old generation grew far
    // more under GetQuote (`npm run bench:promotion`, docs/benchmarks.md), for reasons not found.
    instrumentations: [
      ...(opts.instrumentHttp === false || exportNothing
        ? []
        : [
            new HttpInstrumentation({
              // Probes and metric scrapes are noise in traces.
              ignoreIncomingRequestHook: (req) => req.url === '/livez' || req.url === '/readyz' || req.url === '/metrics',
            }),
          ]),
      new PgInstrumentation(),
    ],
  });
  sdk.start();
}

/** Flushes and stops the SDK; called on shutdown so the last spans are not lost. */
export async function stopTelemetry(): Promise<void> {
  const current = sdk;
  sdk = undefined;
  await current?.shutdown().catch(() => undefined);
}
