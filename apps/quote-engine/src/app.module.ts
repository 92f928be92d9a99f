import { type DynamicModule, Module } from '@nestjs/common';
import { getAddress } from 'viem';
import { DependencyOutages } from '@xchain/messaging';
import { HealthController, LOGGER, serviceProviders, provideValue } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { chainProviders } from './chain/chain.providers';
import { dbProviders } from './db.providers';
import { QuoteEngineMetrics } from './metrics/quote-engine-metrics';
import { QuoteOutcomes } from './quoting/quote-outcomes';
import {
  DEPOSIT_LISTENER,
  ETA_CONFIG,
  EXPIRY_SWEEP_TIMES,
  NATS_REQUEST_TIMEOUT_MS,
  PRICE_BUCKET_GRACE_MS,
  PRICE_MAX_AGE_SECS,
  PRICE_MAX_FUTURE_SKEW_SECS,
  QUOTE_RETENTION_SECS,
  REGISTRY_REFRESH_MS,
} from './config.tokens';
import type { QuoteEngineEnv } from './env';
import { EtaService } from './eta/eta.service';
import { FulfillmentSampleRepository } from './eta/fulfillment-sample.repository';
import { GaslessEventsConsumer } from './orders/gasless-events.consumer';
import { OrderEventsConsumer } from './orders/order-events.consumer';
import { OrderExpirySweep } from './orders/expiry-sweep';
import { UnusedQuoteExpirySweep } from './orders/quote-expiry-sweep';
import { OrderUpdates } from './orders/order-updates';
import { orderViewProviders } from './orders/orders.providers';
import { BUCKET_GRACE_MS, PriceBook } from './prices/price-book';
import { Valuation } from './prices/valuation';
import { QuotePipeline } from './quoting/quote-pipeline';
import { QuoteHandlers } from './quoting/quote.handlers';
import { QuoteService } from './quoting/quote.service';
import { SponsorFunding } from './quoting/sponsor-funding';
import { quotingProviders } from './quoting/quoting.providers';
import { RegistryCache } from './registry/registry-cache';
import { RegistryChangePublisher } from './registry/registry-change-publisher';
import { RegistryHandlers } from './registry/registry.handlers';
import { OrderHandlers } from './orders/order.handlers';
import { RegistryRepository } from './registry/registry.repository';
import { INVENTORY_CONFIG, InventoryBook } from './inventory/inventory-book';
import { InventoryRepository } from './inventory/inventory.repository';
import { SettlementReportHandlers } from './settlement-report.handlers';
import { SettlementRepository } from './settlement/settlement.repository';
import { SETTLEMENT_CONFIG, Settler } from './settlement/settler';
import { StrayDepositRepository } from './settlement/stray-deposits.repository';
import { StrayReturns } from './settlement/stray-returns';
import { ATTESTATION_CONFIG, Attestations } from './rebalancing/attestations';
import { RebalanceRepository } from './rebalancing/rebalance.repository';
import { REBALANCE_CONFIG, Rebalancer } from './rebalancing/rebalancer';

/** The quote-engine: quotes, the registry, order views and settlement, built from one parsed environment. */
@Module({})
export class QuoteEngineModule {
  static forEnv(env: QuoteEngineEnv): DynamicModule {
    return {
      module: QuoteEngineModule,
      controllers: [HealthController, QuoteHandlers, RegistryHandlers, OrderHandlers, SettlementReportHandlers],
      providers: [
        ...serviceProviders('quote-engine', env),
        provideValue(PRICE_MAX_AGE_SECS, env.PRICE_MAX_AGE_SECS),
        provideValue(PRICE_MAX_FUTURE_SKEW_SECS, env.PRICE_MAX_FUTURE_SKEW_SECS),
        provideValue(REGISTRY_REFRESH_MS, env.REGISTRY_REFRESH_MS),
        provideValue(PRICE_BUCKET_GRACE_MS, BUCKET_GRACE_MS),
        provideValue(QUOTE_RETENTION_SECS, env.QUOTE_RETENTION_SECS),
        provideValue(ETA_CONFIG, { windowHours: env.ETA_WINDOW_HOURS, minSamples: env.ETA_MIN_SAMPLES, refreshMs: env.ETA_REFRESH_MS }),
        provideValue(NATS_REQUEST_TIMEOUT_MS, env.NATS_REQUEST_TIMEOUT_MS),
        provideValue(EXPIRY_SWEEP_TIMES, { intervalMs: env.QUOTE_EXPIRY_SWEEP_MS, graceMs: env.QUOTE_GRACE_SECS * 1000 }),
        ...dbProviders(env),
        ...quotingProviders(env),
        RegistryRepository,
        RegistryCache,
        RegistryChangePublisher,
        PriceBook,
        Valuation,
        FulfillmentSampleRepository,
        EtaService,
        OrderUpdates,
        OrderExpirySweep,
        UnusedQuoteExpirySweep,
        OrderEventsConsumer,
        GaslessEventsConsumer,
        // One outage per dependency (the relayer, the partner-service, a chain RPC), whichever caller notices it.
        { provide: DependencyOutages, inject: [LOGGER], useFactory: (log: Logger) => new DependencyOutages(log) },
        SponsorFunding,
        QuotePipeline,
        QuoteService,
        ...orderViewProviders(env),
        ...chainProviders(env),
        QuoteOutcomes,
        QuoteEngineMetrics,
        SettlementRepository,
        provideValue(SETTLEMENT_CONFIG, {
          enabled: env.SETTLEMENT_ENABLED,
          pollMs: env.SETTLEMENT_POLL_MS,
          fillMarginSecs: env.SETTLEMENT_FILL_MARGIN_SECS,
          requestTimeoutMs: env.NATS_REQUEST_TIMEOUT_MS,
          claimEveryMs: env.SETTLEMENT_CLAIM_EVERY_MS,
        }),
        Settler,
        { provide: DEPOSIT_LISTENER, useExisting: Settler },
        StrayDepositRepository,
        StrayReturns,
        provideValue(INVENTORY_CONFIG, {
          enabled: env.SETTLEMENT_ENABLED,
          refreshMs: env.INVENTORY_REFRESH_MS,
          maxAgeMs: env.INVENTORY_MAX_AGE_MS,
          requestTimeoutMs: env.NATS_REQUEST_TIMEOUT_MS,
        }),
        InventoryRepository,
        InventoryBook,
        RebalanceRepository,
        provideValue(ATTESTATION_CONFIG, { url: env.CCTP_ATTESTATION_URL, timeoutMs: env.CCTP_ATTESTATION_TIMEOUT_MS }),
        Attestations,
        provideValue(REBALANCE_CONFIG, {
          enabled: env.SETTLEMENT_ENABLED && env.REBALANCE_ENABLED,
          pollMs: env.REBALANCE_POLL_MS,
          stuckAfterMs: env.REBALANCE_STUCK_AFTER_MS,
          tokenMessenger: getAddress(env.CCTP_TOKEN_MESSENGER),
          messageTransmitter: getAddress(env.CCTP_MESSAGE_TRANSMITTER),
          minFinalityThreshold: env.CCTP_MIN_FINALITY_THRESHOLD,
          maxFeeBps: BigInt(env.CCTP_MAX_FEE_BPS),
          requestTimeoutMs: env.NATS_REQUEST_TIMEOUT_MS,
        }),
        Rebalancer,
      ],
    };
  }
}
