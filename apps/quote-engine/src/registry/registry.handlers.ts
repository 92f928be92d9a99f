import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ListChainsRpc, ListPriceFeedsRpc, ListTokensRpc } from '@xchain/contracts';
import { RpcServer } from '@xchain/messaging';
import { RegistryRepository } from './registry.repository';

@Injectable()
export class RegistryHandlers implements OnModuleInit {
  constructor(
    @Inject(RpcServer) private readonly rpc: RpcServer,
    @Inject(RegistryRepository) private readonly registry: RegistryRepository,
  ) {}

  onModuleInit(): void {
    this.rpc.handle(ListTokensRpc, () => this.registry.listTokens());
    this.rpc.handle(ListChainsRpc, () => this.registry.listChains());
    this.rpc.handle(ListPriceFeedsRpc, () => this.registry.listPriceFeeds());
  }
}
