export * from './telemetry';
export * from './logger';
