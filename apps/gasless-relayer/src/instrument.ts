import { startTelemetry } from '@xchain/telemetry';

startTelemetry('gasless-relayer');
