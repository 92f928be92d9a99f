export * from './connection';
export * from './envelope';
export * from './headers';
export * from './rpc-client';
export * from './rpc-server';
export * from './zod-violations';
export * from './durable-consumer';
export * from './metrics';
