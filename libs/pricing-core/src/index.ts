export * from './errors';
export * from './money';
export * from './pricers';
export * from './quote';
export * from './slippage';
export * from './types';
