import { LedgerReleaseRpc, LedgerSettleRpc, ValueUsdRpc } from '@xchain/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { RpcClient } from '@xchain/messaging';
import { LOGGER } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { zeroAddress } from 'viem';
import { GaslessOrderRepository, type GaslessOrderWithTx } from '../store/gasless-order.repository';
import { RELAYER_CALLER } from './relayer-caller';

/** The registry's address of native SOL (the System program id). */
const SVM_NATIVE = '11111111111111111111111111111111';

/**
 * Closes the sponsor hold of a finished order, exactly once: settle (charge the gas actually
 * spent, valued at the oracle's native price and capped at the hold by the ledger) when it was
 * confirmed, release when it failed. The ledger is idempotent per quote and the hold state moves
 * held → settled | released only once, so a crash between the two is finished by the sweeper.
 */
@Injectable()
export class Holds {
  constructor(
    @Inject(GaslessOrderRepository) private readonly orders: GaslessOrderRepository,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async close(order: GaslessOrderWithTx): Promise<void> {
    if (order.holdState !== 'held') return;
    const quote_hash = order.quoteHash;
    try {
      if (order.tx.status === 'confirmed') {
        const actual = await this.gasUsd(order);
        await this.rpc.call(LedgerSettleRpc, { quote_hash, actual_usd_micros: actual.toString() }, { caller: RELAYER_CALLER });
        await this.orders.setHold(quote_hash, 'held', 'settled');
      } else if (order.tx.status === 'failed') {
        await this.rpc.call(LedgerReleaseRpc, { quote_hash }, { caller: RELAYER_CALLER });
        await this.orders.setHold(quote_hash, 'held', 'released');
      }
    } catch (err) {
      this.log.warn(
        { quote_hash, err: err instanceof Error ? err.message : String(err) },
        'sponsor hold not closed yet; the sweeper retries',
      );
    }
  }

  /** The gas spent in USD micros; without a price, the whole hold (the ledger caps it there). */
  private async gasUsd(order: GaslessOrderWithTx): Promise<bigint> {
    const hold = BigInt(order.holdUsdMicros?.toFixed(0) ?? '0');
    const { gasCostWei, vm, chain } = order.tx;
    if (!gasCostWei) return hold;
    try {
      const native = vm === 'svm' ? SVM_NATIVE : zeroAddress;
      const v = await this.rpc.call(ValueUsdRpc, { chain, token: native, amount: gasCostWei.toFixed(0) }, { caller: RELAYER_CALLER });
      return BigInt(v.usd_micros);
    } catch {
      return hold;
    }
  }
}
