import { Controller, Inject } from '@nestjs/common';
import { GetOrderRpc } from '@xchain/contracts';
import { Rpc, type RpcBody } from '@xchain/messaging';
import { OrderViewService } from './order-view.service';

/** `GET /v1/orders/{quote_hash}` on the bus. */
@Controller()
export class OrderHandlers {
  constructor(@Inject(OrderViewService) private readonly orders: OrderViewService) {}

  @Rpc(GetOrderRpc)
  get(req: RpcBody<typeof GetOrderRpc>) {
    return this.orders.get(req.quote_hash);
  }
}
