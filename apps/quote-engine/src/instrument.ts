import { startTelemetry } from '@xchain/telemetry';

startTelemetry('quote-engine');
