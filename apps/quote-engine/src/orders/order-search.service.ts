import { Inject, Injectable } from '@nestjs/common';
import { Code, RpcError, type OrderStatus } from '@xchain/contracts';
import { OrderSearchRepository } from './order-search.repository';
import { OrderViewService } from './order-view.service';

/** The order explorer's search by transaction: the views of the orders a transaction is a step of. */
@Injectable()
export class OrderSearchService {
  constructor(
    @Inject(OrderSearchRepository) private readonly repo: OrderSearchRepository,
    @Inject(OrderViewService) private readonly views: OrderViewService,
  ) {}

  async byTransaction(txHash: string): Promise<{ orders: OrderStatus[] }> {
    const hashes = await this.repo.quoteHashesOfTransaction(txHash);
    const orders = await Promise.all(
      hashes.map((h) =>
        this.views.get(h).catch((err: unknown) => {
          // Past its retention an order is gone from the views, even while its events are not purged yet.
          if (err instanceof RpcError && err.status.code === Code.NOT_FOUND) return undefined;
          throw err;
        }),
      ),
    );
    return { orders: orders.filter((o): o is OrderStatus => o !== undefined) };
  }
}
