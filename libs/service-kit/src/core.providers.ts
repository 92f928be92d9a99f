import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { RpcClient, RpcServer, connectNats, natsHealthy, type NatsConnection } from '@xchain/messaging';
import { createLogger, stopTelemetry, type Logger } from '@xchain/telemetry';
import { HealthRegistry } from './health';
import { timeProviders } from './clock';
import { Metrics, processMetrics } from './metrics';

export const NATS = Symbol('NATS');
export const LOGGER = Symbol('LOGGER');

/** Drains NATS (in-flight requests finish, no new ones arrive) and flushes traces on shutdown. */
@Injectable()
export class BusLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async onApplicationShutdown(signal?: string): Promise<void> {
    this.log.info({ signal }, 'shutting down');
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => undefined);
    await stopTelemetry();
  }
}

export interface CoreOptions {
  service: string;
  natsUrl: string;
  natsConnectTimeoutMs: number;
  /** The service's NATS user (default: its name) and password (D14). */
  natsUser?: string | undefined;
  natsPassword: string;
  /** Replicas of the streams and buckets this service creates (NATS_STREAM_REPLICAS). */
  natsStreamReplicas?: number | undefined;
}

/** Logger, NATS connection, RPC server (queue group = service name), readiness registry and the process's metrics. */
export function coreProviders(opts: CoreOptions): Provider[] {
  return [
    { provide: LOGGER, useValue: createLogger(opts.service) },
    { provide: Metrics, useValue: processMetrics },
    {
      provide: NATS,
      useFactory: () => {
        if (!opts.natsPassword) throw new Error('NATS_PASSWORD is not set: every service connects to NATS as its own user (D14)');
        return connectNats({
          url: opts.natsUrl,
          name: opts.service,
          connectTimeoutMs: opts.natsConnectTimeoutMs,
          user: opts.natsUser ?? opts.service,
          password: opts.natsPassword,
          streamReplicas: opts.natsStreamReplicas,
        });
      },
    },
    {
      provide: HealthRegistry,
      inject: [NATS],
      useFactory: (nc: NatsConnection) => {
        const health = new HealthRegistry(opts.service);
        health.register('nats', () => natsHealthy(nc));
        return health;
      },
    },
    {
      provide: RpcServer,
      inject: [NATS, LOGGER],
      useFactory: (nc: NatsConnection, log: Logger) => new RpcServer(nc, opts.service, log),
    },
    BusLifecycle,
  ];
}

/**
 * What every service's root module starts with, from its parsed env: the core providers, the
 * Clock and Ids, and the RPC client with the service's request deadline.
 */
export function serviceProviders(
  service: string,
  env: {
    NATS_URL: string;
    NATS_CONNECT_TIMEOUT_MS: number;
    NATS_USER?: string | undefined;
    NATS_PASSWORD: string;
    NATS_STREAM_REPLICAS?: number | undefined;
    NATS_REQUEST_TIMEOUT_MS: number;
  },
): Provider[] {
  return [
    ...coreProviders({
      service,
      natsUrl: env.NATS_URL,
      natsConnectTimeoutMs: env.NATS_CONNECT_TIMEOUT_MS,
      natsUser: env.NATS_USER,
      natsPassword: env.NATS_PASSWORD,
      natsStreamReplicas: env.NATS_STREAM_REPLICAS,
    }),
    ...timeProviders(),
    { provide: RpcClient, inject: [NATS], useFactory: (nc: NatsConnection) => new RpcClient(nc, env.NATS_REQUEST_TIMEOUT_MS) },
  ];
}
