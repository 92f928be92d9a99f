export * from './funding';
export * from './solana-redemption';
export * from './voucher';
