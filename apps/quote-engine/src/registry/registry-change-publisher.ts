import { Inject, Injectable } from '@nestjs/common';
import { REGISTRY_CHANGED_SUBJECT } from '@xchain/contracts';
import type { NatsConnection } from '@xchain/messaging';
import { LOGGER, NATS } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { RegistryCache } from './registry-cache';

/**
 * Tells the gateways when a reload changed the chain or token list, so the copies they serve
 * ListTokens and GetChains from are dropped at once rather than when they age out. Registered in
 * the constructor, before the cache's first load: a restarted engine with a new registry says so too.
 */
@Injectable()
export class RegistryChangePublisher {
  constructor(@Inject(RegistryCache) cache: RegistryCache, @Inject(NATS) nc: NatsConnection, @Inject(LOGGER) log: Logger) {
    cache.onListsChanged(() => {
      try {
        nc.publish(REGISTRY_CHANGED_SUBJECT);
      } catch (err) {
        // Closed or draining: the gateways' max age still bounds how long they serve the old lists.
        log.warn({ err: String(err) }, 'could not publish registry change');
      }
    });
  }
}
