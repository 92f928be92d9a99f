import { startTelemetry } from '@xchain/telemetry';

startTelemetry('price-oracle');
