export * from './client';
export * from './errors';
export { CLIENT_OPERATIONS, NOT_CLIENT_METHODS, methodName, type ClientOperations, type MethodName, type OperationId } from './operations';
export type { OrderEvent, StreamOptions } from './order-events';
export { fetchFrom } from './source-address';
export * from './gasless-flow';
export * from './solana-signing';
