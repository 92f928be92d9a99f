export * from './abi';
export * from './calls';
export * from './typed-data';
export * from './destination-call';
