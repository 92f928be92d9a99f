import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { HTTP_OPERATIONS } from '@xchain/contracts';
import { type NatsConnection } from '@xchain/messaging';
import { HealthController, LOGGER, METRICS_PATH, Metrics, NATS, serviceProviders, provideValue } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import type { GatewayEnv } from './env';
import { StatusExceptionFilter } from './http/exception.filter';
import { OpenApiController } from './http/openapi.controller';
import { OperationRoutes } from './operation-routes';
import { RouteTable } from './http/route-table';
import { accessProviders } from './access/access.providers';
import { idempotencyProviders } from './idempotency/idempotency.providers';
import { sseStreamGauges } from './metrics/gateway-metrics';
import { OrdersController } from './orders/orders.controller';
import { OrderStreamHub } from './orders/order-stream-hub';
import { registryProviders } from './registry/registry-change-listener';
import { GATEWAY_ENV } from './tokens';
import { WEB_ASSETS_PREFIX, WEB_PAGES } from './web/web-pages';

/** The gateway holds no business logic: it authenticates, validates, maps to NATS and maps errors back. */
@Module({})
export class GatewayModule {
  static forEnv(env: GatewayEnv): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [HealthController, OrdersController, OpenApiController],
      providers: [
        provideValue(GATEWAY_ENV, env),
        ...serviceProviders('gateway', env),
        { provide: RouteTable, useFactory: () => gatewayRoutes(env.METRICS_ENABLED) },
        {
          provide: OrderStreamHub,
          inject: [NATS, LOGGER, Metrics],
          useFactory: (nc: NatsConnection, log: Logger, metrics: Metrics) => {
            const hub = new OrderStreamHub(
              nc,
              { perCaller: env.SSE_MAX_STREAMS_PER_CALLER, perReplica: env.SSE_MAX_STREAMS_PER_REPLICA },
              log,
            );
            sseStreamGauges(metrics, hub);
            return hub;
          },
        },
        ...accessProviders(env),
        ...idempotencyProviders(env),
        ...registryProviders(env.REGISTRY_LIST_MAX_AGE_MS),
        OperationRoutes,
        { provide: APP_FILTER, useClass: StatusExceptionFilter },
      ],
    };
  }
}

/** Every path the gateway answers, to tell an unknown path (404) from a wrong method (405). */
function gatewayRoutes(metrics: boolean): RouteTable {
  const routes = new RouteTable();
  routes.addOperations(HTTP_OPERATIONS);
  routes.add('GET', '/json/v1/openapi.json');
  routes.add('GET', '/livez');
  routes.add('GET', '/readyz');
  if (metrics) routes.add('GET', METRICS_PATH);
  for (const prefix of Object.values(WEB_PAGES)) for (const path of [prefix, `${prefix}/*`]) routes.add('GET', path);
  routes.add('GET', `${WEB_ASSETS_PREFIX}*`);
  return routes;
}
