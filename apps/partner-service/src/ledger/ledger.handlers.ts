import { Controller, Inject } from '@nestjs/common';
import { LedgerBalanceRpc, LedgerHoldRpc, LedgerReleaseRpc, LedgerSettleRpc } from '@xchain/contracts';
import { Rpc, type RpcBody } from '@xchain/messaging';
import { LedgerService } from './ledger.service';

/** The sponsorship ledger over NATS: holds from the relayer, balances for the quote-engine. */
@Controller()
export class LedgerHandlers {
  constructor(@Inject(LedgerService) private readonly ledger: LedgerService) {}

  @Rpc(LedgerHoldRpc)
  hold(req: RpcBody<typeof LedgerHoldRpc>) {
    return this.ledger.hold(req.partner_id, req.quote_hash, BigInt(req.amount_usd_micros));
  }

  @Rpc(LedgerSettleRpc)
  settle(req: RpcBody<typeof LedgerSettleRpc>) {
    return this.ledger.settle(req.quote_hash, BigInt(req.actual_usd_micros));
  }

  @Rpc(LedgerReleaseRpc)
  release(req: RpcBody<typeof LedgerReleaseRpc>) {
    return this.ledger.release(req.quote_hash);
  }

  @Rpc(LedgerBalanceRpc)
  async balance(req: RpcBody<typeof LedgerBalanceRpc>) {
    return { partner_id: req.partner_id, balance_usd_micros: (await this.ledger.balance(req.partner_id)).toString() };
  }
}
