import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type OperatorTxView, SendOperatorTxRpc } from '@xchain/contracts';

import { DependencyOutages, RpcClient, chainRpcDependency, serviceDependency } from '@xchain/messaging';
import { LOGGER, Periodic } from '@xchain/service-kit';
import { strayReturnKey } from '@xchain/svm-orders';
import type { Logger } from '@xchain/telemetry';
import { PassWarnings } from './pass-warnings';
import { IDLE_PASSES_MAX, SETTLEMENT_CONFIG, type SettlementConfig } from './settler';
import { type StrayDeposit, StrayDepositRepository } from './stray-deposits.repository';

/** Stray deposits asked about per pass, at most. */
const BATCH = 200;

/**
 * Sends every open stray Solana deposit back to its sender (D16) through the relayer, as an
 * operator transaction of kind `return` keyed by `strayReturnKey(chain, signature, index)`: the
 * relayer stores that key before signing, so asking each pass until the answer is final sends one
 * return per deposit, whatever the retries, restarts or replicas. Its own loop beside the Settler's
 * (same `SETTLEMENT_*` switch and pace, idle passes included): a stray deposit belongs to no order, so it shares none of
 * the Settler's decisions, and neither loop can hold the other up.
 */
@Injectable()
export class StrayReturns implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop: Periodic;
  private readonly warnings: PassWarnings;

  constructor(
    @Inject(StrayDepositRepository) private readonly repo: Pick<StrayDepositRepository, 'open' | 'close'>,
    @Inject(RpcClient) private readonly rpc: Pick<RpcClient, 'call'>,
    @Inject(SETTLEMENT_CONFIG) private readonly config: Pick<SettlementConfig, 'enabled' | 'pollMs' | 'requestTimeoutMs'>,
    @Inject(LOGGER) private readonly log: Pick<Logger, 'info' | 'warn' | 'error'>,
    @Inject(DependencyOutages) outages?: Pick<DependencyOutages, 'failed' | 'succeeded'>,
  ) {
    this.warnings = new PassWarnings(log, outages);
    this.loop = new Periodic(
      () => this.pass(),
      config.pollMs,
      (err) => this.log.warn({ err: message(err) }, 'stray deposit returns: pass failed; next pass retries'),
      { idleMaxMs: config.pollMs * IDLE_PASSES_MAX },
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.enabled) this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass; `Periodic.IDLE` when no stray deposit is open (the pause then grows, as the Settler's). */
  async pass(): Promise<typeof Periodic.IDLE | undefined> {
    const open = await this.repo.open(BATCH);
    for (const s of open) await this.returnOne(s);
    return open.length === 0 ? Periodic.IDLE : undefined;
  }

  private async returnOne(s: StrayDeposit): Promise<void> {
    let view: OperatorTxView;
    try {
      view = await this.rpc.call(
        SendOperatorTxRpc,
        {
          kind: 'return',
          quote_hash: strayReturnKey(s.chain, s.signature, s.memoIndex),
          chain: s.chain,
          call: {
            vm: 'svm',
            return: { deposit_signature: s.signature, deposit_index: s.memoIndex, to: s.sender, mint: s.mint, amount: s.amount.toFixed(0) },
          },
        },
        { timeoutMs: this.config.requestTimeoutMs },
      );
      this.warnings.answered(serviceDependency(SendOperatorTxRpc), chainRpcDependency(s.chain));
    } catch (err) {
      // The relayer may be down or the deposit's return refused; the row stays open and is asked about again.
      this.warnings.failed(
        `${s.chain}:${message(err)}`,
        err,
        { chain: s.chain, tx_hash: s.signature, err: message(err) },
        'stray deposit return not sent this pass; retried',
      );
      return;
    }
    const fields = {
      chain: s.chain,
      tx_hash: s.signature,
      log_index: s.memoIndex,
      sender: s.sender,
      mint: s.mint,
      amount: s.amount.toFixed(0),
      reason: s.reason,
    };
    if (view.status === 'confirmed') {
      if (await this.repo.close(s, { state: 'returned', returnTx: view.tx_hash ?? null }))
        this.log.info({ ...fields, return_tx: view.tx_hash }, 'stray deposit returned to its sender');
    } else if (view.status === 'failed') {
      const error = `return: ${view.error ?? 'failed'}`;
      if (await this.repo.close(s, { state: 'stuck', error }))
        this.log.error({ ...fields, error }, 'stray deposit return failed; an operator must look');
    }
  }
}

const message = (err: unknown) => (err instanceof Error ? err.message.split('\n')[0]! : String(err));
