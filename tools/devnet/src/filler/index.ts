export * from './equip-filler';
export * from './order-logs';
