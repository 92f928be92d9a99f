export * from './addresses';
export * from './attestation';
export * from './cctp';
