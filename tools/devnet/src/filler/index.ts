export * from './equip-filler';
export * from './fill-delay';
export * from './local-filler';
export * from './order-logs';
export * from './start-filler';
