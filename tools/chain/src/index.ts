export * from './anvil';
export * from './cctp';
export * from './compile';
export * from './deploy';
export * from './permit2';
