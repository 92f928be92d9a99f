import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ListChainsRpc, ListPriceFeedsRpc, ListTokensRpc } from '@xchain/contracts';
import { RpcServer } from '@xchain/messaging';
import { RegistryCache } from './registry-cache';
import { RegistryRepository } from './registry.repository';

@Injectable()
export class RegistryHandlers implements OnModuleInit {
  constructor(
    @Inject(RpcServer) private readonly rpc: RpcServer,
    @Inject(RegistryCache) private readonly cache: RegistryCache,
    @Inject(RegistryRepository) private readonly registry: RegistryRepository,
  ) {}

  onModuleInit(): void {
    // Served from memory: the lists change only when the operator reseeds (within REGISTRY_REFRESH_MS).
    this.rpc.handle(ListTokensRpc, async () => this.cache.listTokens());
    this.rpc.handle(ListChainsRpc, async () => this.cache.listChains());
    // Asked by the price-oracle at start and on its own refresh: the database is fine here.
    this.rpc.handle(ListPriceFeedsRpc, () => this.registry.listPriceFeeds());
  }
}
