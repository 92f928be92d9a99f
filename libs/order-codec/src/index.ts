export * from './base58';
export * from './order';
export { keccak256Hex, keccakReady } from './keccak';
export * from './order-abi';
export type { Hex } from 'viem';
export * from './wire';
export { sampleOrder } from './testing';
