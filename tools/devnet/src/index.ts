export * from './dev-keys';
export * from './devnet-plan';
export * from './fund';
export * from './rpc-urls';
export * from './start-devnet';
export * from './state-file';
export * from './filler';
export * from './refund';
export { DEV_RETENTION_SECS } from './equip-chain';
