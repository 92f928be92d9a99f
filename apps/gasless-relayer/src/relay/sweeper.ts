import { Code, LedgerHoldRpc, RpcError } from '@xchain/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { RpcClient } from '@xchain/messaging';
import type { Logger } from '@xchain/telemetry';
import { GaslessOrderRepository } from '../store/gasless-order.repository';
import { LaneTxRepository } from '../store/lane-tx.repository';
import { RELAYER_CALLER } from './relayer-caller';
import { Holds } from './holds';
import { Lanes } from './lanes';
import { LOGGER, Periodic, token } from '@xchain/service-kit';
import { Sender } from './sender';

/** How often the sweeper runs (RELAY_SWEEP_MS). */
export const SWEEP_MS = token<number>('SWEEP_MS');

/** A queued order this long untouched has probably lost its job (Redis restarted or emptied). */
const STALE_MS = 2000;

/**
 * Makes the database's word final: every queued order is enqueued again (a no-op while its job
 * still waits), a sponsor hold interrupted by a crash is taken or the order fails, and a finished
 * order's open hold is closed. Runs at start and every `sweepMs`.
 */
@Injectable()
export class Sweeper {
  private readonly loop: Periodic;

  constructor(
    @Inject(LaneTxRepository) private readonly txs: LaneTxRepository,
    @Inject(GaslessOrderRepository) private readonly orders: GaslessOrderRepository,
    @Inject(Lanes) private readonly lanes: Lanes,
    @Inject(Holds) private readonly holds: Holds,
    @Inject(Sender) private readonly sender: Sender,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(SWEEP_MS) sweepMs: number,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.loop = new Periodic(
      () => this.sweep(),
      sweepMs,
      (err) => this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'sweep failed'),
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  async sweep(): Promise<void> {
    let enqueued = 0;
    for (const o of await this.txs.staleQueued(STALE_MS)) {
      const held = o.gasless;
      if (held?.holdState === 'holding' && !(await this.retryHold(o.id, held.partnerId!, held.holdUsdMicros?.toFixed(0) ?? '0', o.chain)))
        continue;
      if (o.vm === 'svm') continue; // no lane: the Solana relay sends its queued transactions on each of its passes
      await this.lanes.enqueue(o.chain, o.wallet, o.id);
      enqueued++;
    }
    if (enqueued > 0) this.log.info({ enqueued }, 'queued orders enqueued again');
    for (const o of await this.orders.openHolds()) await this.holds.close(o);
  }

  /** Takes a hold interrupted by a crash; a refused one fails the order. True when the order may go. */
  private async retryHold(quoteHash: string, partnerId: string, amount: string, chain: string): Promise<boolean> {
    try {
      await this.rpc.call(
        LedgerHoldRpc,
        { partner_id: partnerId, quote_hash: quoteHash, amount_usd_micros: amount },
        { caller: RELAYER_CALLER },
      );
      return this.orders.setHold(quoteHash, 'holding', 'held');
    } catch (err) {
      if (err instanceof RpcError && err.status.code === Code.FAILED_PRECONDITION) {
        if (await this.txs.fail(quoteHash, 'queued', 'SPONSOR_BALANCE_INSUFFICIENT: the sponsor could not cover the relay gas'))
          await this.sender.finished(chain, quoteHash);
      }
      return false;
    }
  }
}
