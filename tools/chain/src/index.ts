export * from './anvil';
export * from './compile';
