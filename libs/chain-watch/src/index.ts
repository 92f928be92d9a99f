export * from './chain-map';
export * from './chain-log';
export * from './confirmations';
export * from './cursor-store';
export * from './log-watcher';
export * from './rpc-urls';
export * from './svm-chain';
export * from './svm-address-reader';
