import type { Provider } from '@nestjs/common';
import { DependencyOutages, RpcClient } from '@xchain/messaging';
import { Clock, LOGGER } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import type { QuoteEngineEnv } from '../env';
import { RegistryCache } from '../registry/registry-cache';
import { relayerGaslessLookup } from './gasless-lookup';
import { OrderRepository } from './order.repository';
import { OrderSearchRepository } from './order-search.repository';
import { OrderSearchService } from './order-search.service';
import { OrderViewPushRepository } from './order-view-push.repository';
import { OrderEventRepository } from './order-event.repository';
import { ExpiredOrdersRepository, UnusedQuotesRepository } from './expiry.repository';
import { ORDER_VIEW_DEPS, OrderViewService, type OrderViewDeps } from './order-view.service';

/** The order view (`order.v1.get`) and its collaborators. */
export const orderViewProviders = (env: Pick<QuoteEngineEnv, 'QUOTE_GRACE_SECS'>): Provider[] => [
  OrderRepository,
  {
    provide: ORDER_VIEW_DEPS,
    inject: [OrderRepository, RpcClient, RegistryCache, LOGGER, DependencyOutages, Clock],
    useFactory: (
      records: OrderRepository,
      rpc: RpcClient,
      registry: RegistryCache,
      log: Logger,
      outages: DependencyOutages,
      clock: Clock,
    ): OrderViewDeps => ({
      records,
      lists: records,
      gasless: relayerGaslessLookup(rpc),
      outages,
      now: () => clock.now(),
      graceMs: env.QUOTE_GRACE_SECS * 1000,
      vmOf: (chain) => registry.chain(chain)?.vm,
      assertChain: (chain, field) => void registry.knownChain(chain, field, 'INVALID_CHAIN'),
      log,
    }),
  },
  OrderViewService,
  OrderSearchRepository,
  OrderSearchService,
  OrderViewPushRepository,
  OrderEventRepository,
  ExpiredOrdersRepository,
  UnusedQuotesRepository,
];
