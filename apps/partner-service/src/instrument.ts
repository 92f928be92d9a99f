import { startTelemetry } from '@xchain/telemetry';

startTelemetry('partner-service');
