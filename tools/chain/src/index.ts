export * from './anvil';
export * from './compile';
export * from './deploy';
export * from './permit2';
