import { Controller, Inject } from '@nestjs/common';
import { ExportPartnerOrdersRpc, FindOrdersByTransactionRpc, GetOrderRpc, ListOrdersRpc, ListPartnerOrdersRpc } from '@xchain/contracts';
import { Rpc, type RpcBody, type RpcCtx } from '@xchain/messaging';
import { OrderSearchService } from './order-search.service';
import { OrderViewService } from './order-view.service';

/** `GET /v1/orders/{quote_hash}`, `GET /v1/orders`, `GET /v1/transactions/{tx_hash}/orders`, `GET /v1/partner/orders` and its CSV export on the bus. */
@Controller()
export class OrderHandlers {
  constructor(
    @Inject(OrderViewService) private readonly orders: OrderViewService,
    @Inject(OrderSearchService) private readonly search: OrderSearchService,
  ) {}

  @Rpc(GetOrderRpc)
  get(req: RpcBody<typeof GetOrderRpc>) {
    return this.orders.get(req.quote_hash);
  }

  @Rpc(ListPartnerOrdersRpc)
  listForPartner(req: RpcBody<typeof ListPartnerOrdersRpc>, ctx: RpcCtx<typeof ListPartnerOrdersRpc>) {
    return this.orders.listForPartner(ctx.session.partnerId, req);
  }

  @Rpc(ListOrdersRpc)
  list(req: RpcBody<typeof ListOrdersRpc>) {
    const { address, ...query } = req;
    return this.orders.listForAddress(address, query);
  }

  @Rpc(ExportPartnerOrdersRpc)
  exportForPartner(req: RpcBody<typeof ExportPartnerOrdersRpc>, ctx: RpcCtx<typeof ExportPartnerOrdersRpc>) {
    return this.orders.exportForPartner(ctx.session.partnerId, req);
  }

  @Rpc(FindOrdersByTransactionRpc)
  findByTransaction(req: RpcBody<typeof FindOrdersByTransactionRpc>) {
    return this.search.byTransaction(req.tx_hash);
  }
}
