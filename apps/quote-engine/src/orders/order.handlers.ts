import { Controller, Inject } from '@nestjs/common';
import { GetOrderRpc, ListPartnerOrdersRpc } from '@xchain/contracts';
import { Rpc, type RpcBody, type RpcCtx } from '@xchain/messaging';
import { OrderViewService } from './order-view.service';

/** `GET /v1/orders/{quote_hash}` and `GET /v1/partner/orders` on the bus. */
@Controller()
export class OrderHandlers {
  constructor(@Inject(OrderViewService) private readonly orders: OrderViewService) {}

  @Rpc(GetOrderRpc)
  get(req: RpcBody<typeof GetOrderRpc>) {
    return this.orders.get(req.quote_hash);
  }

  @Rpc(ListPartnerOrdersRpc)
  listForPartner(req: RpcBody<typeof ListPartnerOrdersRpc>, ctx: RpcCtx<typeof ListPartnerOrdersRpc>) {
    return this.orders.listForPartner(ctx.session.partnerId, req);
  }
}
