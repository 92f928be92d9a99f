import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { GetOrderRpc } from '@xchain/contracts';
import { RpcServer } from '@xchain/messaging';
import { OrderViewService } from './order-view.service';

@Injectable()
export class OrderHandlers implements OnModuleInit {
  constructor(
    @Inject(RpcServer) private readonly rpc: RpcServer,
    @Inject(OrderViewService) private readonly orders: OrderViewService,
  ) {}

  onModuleInit(): void {
    this.rpc.handle(GetOrderRpc, (req) => this.orders.get(req.quote_hash));
  }
}
