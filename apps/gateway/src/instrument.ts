import { startTelemetry } from '@xchain/telemetry';

startTelemetry('gateway');
