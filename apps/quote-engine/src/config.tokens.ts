import { token } from '@xchain/service-kit';
import type { QuotingConfig } from './quoting-config';

/*
 * Settings that have no class of their own, as typed tokens: QuoteEngineModule.forEnv binds them
 * from the one parsed environment (or from quoting.json, for QUOTING_CONFIG).
 */
export const QUOTING_CONFIG = token<QuotingConfig>('QUOTING_CONFIG');
export const PRICE_MAX_AGE_SECS = token<number>('PRICE_MAX_AGE_SECS');
export const PRICE_MAX_FUTURE_SKEW_SECS = token<number>('PRICE_MAX_FUTURE_SKEW_SECS');
/** How long a bucket the price-oracle has not made yet is waited for before each retry warns (BUCKET_GRACE_MS). */
export const PRICE_BUCKET_GRACE_MS = token<number>('PRICE_BUCKET_GRACE_MS');
export const REGISTRY_REFRESH_MS = token<number>('REGISTRY_REFRESH_MS');
export const QUOTE_RETENTION_SECS = token<number>('QUOTE_RETENTION_SECS');
/** How the fulfilment ETA is estimated: the window of samples, how many make an estimate, how often they are read. */
export interface EtaConfig {
  windowHours: number;
  minSamples: number;
  refreshMs: number;
}
export const ETA_CONFIG = token<EtaConfig>('ETA_CONFIG');
/** Deadline of the engine's own requests and publishes on the bus (NATS_REQUEST_TIMEOUT_MS). */
export const NATS_REQUEST_TIMEOUT_MS = token<number>('NATS_REQUEST_TIMEOUT_MS');
/** The expiry sweep's pause between runs and the grace past retention (QUOTE_EXPIRY_SWEEP_MS, QUOTE_GRACE_SECS). */
export const EXPIRY_SWEEP_TIMES = token<{ intervalMs: number; graceMs: number }>('EXPIRY_SWEEP_TIMES');
/**
 * Told each time a deposit is recorded (the Settler: it decides at once rather than at its next
 * pass). A token, so the order events consumer does not depend on settlement.
 */
export interface DepositListener {
  kick(): void;
}
export const DEPOSIT_LISTENER = token<DepositListener>('DEPOSIT_LISTENER');
