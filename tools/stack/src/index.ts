export * from './bus';
export * from './process';
export * from './servers';
export * from './services';
export * from './stack';
export * from './prometheus';
export * from './prometheus-rules';
export * from './test-database';
