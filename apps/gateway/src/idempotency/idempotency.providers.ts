import type { Provider } from '@nestjs/common';
import { LOGGER, Metrics } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import type { Redis } from 'ioredis';
import { REDIS } from '../access/access.providers';
import type { GatewayEnv } from '../env';
import { idempotencyOutcomeCounter } from '../metrics/gateway-metrics';
import { IdempotencyStore } from './idempotency-store';
import type { IdempotentRouteDeps } from './idempotent-route';

/** How long an answer is replayed for its key (Stripe's 24 hours). */
export const IDEMPOTENCY_RETAIN_MS = 24 * 60 * 60 * 1000;

/** What the idempotent routes share: the store in the gateway's Redis, the log and the outcome counter. */
export class IdempotencyGuard {
  constructor(readonly deps: IdempotentRouteDeps) {}
}

export function idempotencyProviders(env: GatewayEnv): Provider[] {
  return [
    {
      provide: IdempotencyGuard,
      inject: [REDIS, LOGGER, Metrics],
      useFactory: (redis: Redis, log: Logger, metrics: Metrics) =>
        new IdempotencyGuard({
          store: new IdempotencyStore(redis, {
            keyPrefix: `${env.RATE_LIMIT_PREFIX}:idem`,
            leaseMs: env.IDEMPOTENCY_LEASE_MS,
            retainMs: IDEMPOTENCY_RETAIN_MS,
          }),
          log,
          onOutcome: idempotencyOutcomeCounter(metrics),
        }),
    },
  ];
}
