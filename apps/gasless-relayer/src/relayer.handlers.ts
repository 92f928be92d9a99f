import { Controller, Inject } from '@nestjs/common';
import { GetGaslessOrderRpc, OperatorBalanceRpc, RpcError, SendOperatorTxRpc, SubmitGaslessOrderRpc } from '@xchain/contracts';
import { Rpc, type RpcBody } from '@xchain/messaging';
import { Clock } from '@xchain/service-kit';
import { OperatorTxs } from './operator/operator-txs';
import { GaslessOrderRepository, viewOf } from './store/gasless-order.repository';
import { SubmitService } from './submit/submit.service';

/** The relayer's operations on the bus. */
@Controller()
export class RelayerHandlers {
  constructor(
    @Inject(SubmitService) private readonly submitService: SubmitService,
    @Inject(GaslessOrderRepository) private readonly orders: GaslessOrderRepository,
    @Inject(OperatorTxs) private readonly operatorTxs: OperatorTxs,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  @Rpc(SubmitGaslessOrderRpc)
  submit(req: RpcBody<typeof SubmitGaslessOrderRpc>) {
    return this.submitService.submit(req);
  }

  @Rpc(GetGaslessOrderRpc)
  async get(req: RpcBody<typeof GetGaslessOrderRpc>) {
    const order = await this.orders.find(req.quote_hash.toLowerCase());
    if (!order) throw RpcError.notFound(`no gasless order for ${req.quote_hash}`, 'ORDER_NOT_FOUND');
    return viewOf(order);
  }

  @Rpc(SendOperatorTxRpc)
  sendOperatorTx(req: RpcBody<typeof SendOperatorTxRpc>) {
    return this.operatorTxs.send(req);
  }

  @Rpc(OperatorBalanceRpc)
  async operatorBalance(req: RpcBody<typeof OperatorBalanceRpc>) {
    const { wallet, balance } = await this.operatorTxs.balance(req.chain, req.token);
    return { chain: req.chain, token: req.token, wallet, balance: balance.toString(), at: this.clock.now().toISOString() };
  }
}
