import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit, type Provider } from '@nestjs/common';
import { REGISTRY_CHANGED_SUBJECT } from '@xchain/contracts';
import type { NatsConnection, Subscription } from '@xchain/messaging';
import { Clock, NATS } from '@xchain/service-kit';
import { RegistryLists } from './registry-lists';
import { RegistryRoutes } from './registry.routes';

/**
 * Drops the kept lists the moment a quote-engine says its registry changed, and after every
 * reconnect to NATS: a notice sent while this gateway was cut off is lost (core NATS keeps nothing).
 */
@Injectable()
export class RegistryChangeListener implements OnModuleInit, OnApplicationShutdown {
  private sub?: Subscription;

  constructor(
    @Inject(NATS) private readonly nc: Pick<NatsConnection, 'subscribe' | 'status'>,
    @Inject(RegistryLists) private readonly lists: Pick<RegistryLists, 'changed'>,
  ) {}

  onModuleInit(): void {
    this.sub = this.nc.subscribe(REGISTRY_CHANGED_SUBJECT, {
      callback: (err) => {
        if (!err) this.lists.changed();
      },
    });
    void this.dropOnReconnect();
  }

  /** Ends with the connection (its status stream ends when it closes). */
  private async dropOnReconnect(): Promise<void> {
    for await (const s of this.nc.status()) if (s.type === 'reconnect') this.lists.changed();
  }

  onApplicationShutdown(): void {
    this.sub?.unsubscribe();
  }
}

/** The gateway's registry reads: the kept lists, the listener that drops them, the handler that serves them. */
export function registryProviders(maxAgeMs: number): Provider[] {
  return [
    { provide: RegistryLists, inject: [Clock], useFactory: (clock: Clock) => new RegistryLists(maxAgeMs, clock) },
    RegistryChangeListener,
    RegistryRoutes,
  ];
}
