export { type Commitment, RpcFailure, SolanaLedger, type LedgerOptions } from './ledger';
export { type SolanaStandin, type SolanaStandinOptions, startSolanaStandin } from './start-standin';
export * from './dev-keys';
export * from './dev-solana';
