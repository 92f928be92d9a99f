export * from './base58';
export * from './order';
export * from './wire';
