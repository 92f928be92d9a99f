import { Controller, Inject } from '@nestjs/common';
import { ListChainsRpc, ListPriceFeedsRpc, ListTokensRpc } from '@xchain/contracts';
import { Rpc } from '@xchain/messaging';
import { RegistryCache } from './registry-cache';
import { RegistryRepository } from './registry.repository';

/** The registry on the bus: chains and tokens for clients, price feeds for the price-oracle. */
@Controller()
export class RegistryHandlers {
  constructor(
    @Inject(RegistryCache) private readonly cache: RegistryCache,
    @Inject(RegistryRepository) private readonly registry: RegistryRepository,
  ) {}

  // Served from memory: the lists change only when the operator reseeds (within REGISTRY_REFRESH_MS).
  @Rpc(ListTokensRpc)
  listTokens() {
    return this.cache.listTokens();
  }

  @Rpc(ListChainsRpc)
  listChains() {
    return this.cache.listChains();
  }

  // Asked by the price-oracle at start and on its own refresh: the database is fine here.
  @Rpc(ListPriceFeedsRpc)
  listPriceFeeds() {
    return this.registry.listPriceFeeds();
  }
}
