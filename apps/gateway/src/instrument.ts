import { startTelemetry } from '@xchain/telemetry';

// The gateway's HTTP server spans come from its own Fastify hooks (http/http-tracing.ts).
startTelemetry('gateway', { instrumentHttp: false });
