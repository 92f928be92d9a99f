import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  Code,
  type DestinationCallView,
  OperatorBalanceRpc,
  type OrderWire,
  RpcError,
  SendOperatorTxRpc,
  type OperatorTxKind,
  type OperatorTxView,
} from '@xchain/contracts';
import { depositAmount } from '@xchain/evm-gasless';
import { DependencyOutages, RpcClient, chainRpcDependency, serviceDependency } from '@xchain/messaging';
import { orderFromWire } from '@xchain/order-codec';
import { Clock, LOGGER, Periodic, SystemClock, token } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { OrderUpdates } from '../orders/order-updates';
import { RegistryCache } from '../registry/registry-cache';
import { InventoryBook } from '../inventory/inventory-book';
import { type OperatorCall, claimBatchId, claimCall, dstTokenKey, operatorCall } from './operator-calls';
import { PassWarnings } from './pass-warnings';
import { screen } from './screen';
import { SettlementRepository, type SettlementStep, type Undecided } from './settlement.repository';

export const SETTLEMENT_CONFIG = token<SettlementConfig>('SETTLEMENT_CONFIG');

export interface SettlementConfig {
  enabled: boolean;
  /**
   * Pause between passes (decide the new deposits, then move every open settlement on). Passes that
   * find nothing to do wait longer, up to IDLE_PASSES_MAX × this, until a deposit wakes the loop.
   */
  pollMs: number;
  /** No fill is started this close to the end of an order's retention (the router's deadline). */
  fillMarginSecs: number;
  /** Deadline of each request to the relayer. */
  requestTimeoutMs: number;
  /** Claims due are gathered into batches this often (one claim transaction per chain and batch). */
  claimEveryMs: number;
}

/**
 * Pauses after passes that found nothing grow to this many `pollMs` at most: an idle engine then
 * asks its database a few times a second less (each pass is three queries), and a deposit still
 * wakes the loop at once (`kick`).
 */
export const IDLE_PASSES_MAX = 8;

/** Orders one claim transaction repays at most. */
const CLAIM_BATCH = 50;

/** Settlements decided or moved on per pass, at most. */
const BATCH = 200;

/**
 * The operator's side of every deposited order (D15, D16), run by the order lifecycle: each
 * deposit the chain watchers recorded at depth is screened (matches the order, not too close to
 * the end of retention), then filled if inventory can be reserved for it (filler balance minus
 * what open fills hold), else refunded. The relayer sends each transaction through the operator
 * wallet's lane; this only asks, and asks again each pass until the answer is final, which the
 * relayer makes at most one transaction per (kind, order). A failed fill becomes a refund: on
 * another chain the destination router first cancels the order, so no fill can land after it.
 */
@Injectable()
export class Settler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop: Periodic;
  private readonly warnings: PassWarnings;
  private lastBatching = 0;

  constructor(
    @Inject(SettlementRepository) private readonly repo: SettlementRepository,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(RegistryCache) private readonly registry: Pick<RegistryCache, 'chain' | 'token'>,
    @Inject(SETTLEMENT_CONFIG) private readonly config: SettlementConfig,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(InventoryBook) private readonly inventory?: Pick<InventoryBook, 'refresh'>,
    @Inject(OrderUpdates) private readonly updates?: Pick<OrderUpdates, 'changed'>,
    @Inject(DependencyOutages) outages?: DependencyOutages,
    @Inject(Clock) private readonly clock: Clock = new SystemClock(),
  ) {
    this.warnings = new PassWarnings(log, outages);
    this.loop = new Periodic(
      () => this.pass(),
      config.pollMs,
      (err) => this.log.warn({ err: message(err) }, 'settlement pass failed; next pass retries'),
      { idleMaxMs: config.pollMs * IDLE_PASSES_MAX },
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.enabled) this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  /** A deposit was just recorded: decide now rather than at the next pass. */
  kick(): void {
    this.loop.wake();
  }

  /** One pass; `Periodic.IDLE` when there was nothing to decide, move on or claim. */
  async pass(): Promise<typeof Periodic.IDLE | undefined> {
    // One balance reading per destination token and pass: decisions of one pass share it, and the
    // reservations they add are counted under the lock, so a burst of deposits costs one read each.
    const balances = new Map<string, Promise<bigint>>();
    const undecided = await this.repo.undecided(BATCH);
    for (const u of undecided) await this.decide(u, balances);
    const open = await this.repo.open(BATCH);
    await Promise.all(
      open.map((s) => this.drive(s.quoteHash, s.step as SettlementStep, s.order, s.srcChain, s.dstChain, s.destinationCall)),
    );
    const claims = await this.claim();
    return undecided.length === 0 && open.length === 0 && claims === 0 ? Periodic.IDLE : undefined;
  }

  /**
   * Repays the treasury (D15): the deposits of confirmed fills are claimed from their source router
   * (or the Solana vault) in batches, one claim transaction per batch through the operator wallet's
   * lane (on Solana, one per batch and source token). A batch that fails is split into claims of one
   * order each, so one bad order holds up no other. Each deposit is in one batch at a time, and its
   * batch is sent at most once under its id (the relayer's row), so a deposit is claimed once.
   */
  private async claim(): Promise<number> {
    if (this.clock.nowMs() - this.lastBatching >= this.config.claimEveryMs) {
      this.lastBatching = this.clock.nowMs();
      for (const chain of await this.repo.claimChains())
        await this.repo.formClaimBatches(chain, CLAIM_BATCH, claimBatchId, this.vmOf(chain) === 'svm');
    }
    const batches = await this.repo.claimBatches();
    for (const batch of batches) {
      const info = this.registry.chain(batch.chain);
      if (!info) {
        this.warnings.once(
          `registry:${batch.chain}`,
          { chain: batch.chain },
          'settlement: a claim’s chain is not in the registry; it waits',
        );
        continue;
      }
      try {
        const orders = batch.orders.map((o) => o.order);
        const view = await this.send('claim', batch.id, batch.chain, claimCall(orders, info, this.registry));
        if (view.status === 'confirmed') {
          await this.repo.claimOutcome(batch.id, 'claimed');
          this.log.info(
            { chain: batch.chain, orders: orders.length, tx_hash: view.tx_hash },
            'settlement: deposits claimed to the treasury',
          );
        } else if (view.status === 'failed') {
          await this.repo.claimOutcome(batch.id, 'failed', `claim: ${view.error ?? 'failed'}`);
          this.log.warn(
            { chain: batch.chain, orders: orders.length, error: view.error },
            'settlement: claim failed; its orders are claimed one by one',
          );
        }
      } catch (err) {
        this.warnings.failed(
          `claim:${batch.chain}:${reasonOf(err)}`,
          err,
          { chain: batch.chain, err: message(err) },
          'settlement: claim not sent this pass; retried',
        );
      }
    }
    return batches.length;
  }

  private async decide(u: Undecided, balances: Map<string, Promise<bigint>>): Promise<void> {
    const order = orderFromWire(u.order).order;
    const [srcVm, dstVm] = [this.vmOf(u.srcChain), this.vmOf(u.dstChain)];
    if (!srcVm || !dstVm)
      return this.warnings.once(
        `registry:${u.srcChain}:${u.dstChain}`,
        { src_chain: u.srcChain, dst_chain: u.dstChain },
        'settlement: a chain of a deposited order is not in the registry; it waits',
      );
    const dstToken = dstTokenKey(dstVm, order, u.order);
    const step = this.refundStep(u.srcChain, u.dstChain);
    // The EVM router keeps back a gasless order's relay fee; a Solana vault receives all of amount_in.
    const expected = srcVm === 'evm' ? depositAmount(order) : order.amountIn;
    const refused = screen({
      now: this.clock.now(),
      retainedUntil: u.retainedUntil,
      marginSecs: this.config.fillMarginSecs,
      expectedDeposit: expected,
      deposited: u.deposit.amount === null ? null : BigInt(u.deposit.amount),
    });
    if (refused) {
      await this.repo.decideRefund(u, dstToken, refused.reason, step, refused.error);
      this.log.info({ quote_hash: u.quoteHash, reason: refused.reason, detail: refused.error }, 'settlement: refund decided');
      this.viewChanged(u.quoteHash);
      return;
    }
    let balance: bigint;
    try {
      const key = `${u.dstChain}:${dstToken}`;
      let reading = balances.get(key);
      if (!reading) {
        reading = this.rpc
          .call(OperatorBalanceRpc, { chain: u.dstChain, token: dstToken }, { timeoutMs: this.config.requestTimeoutMs })
          .then((b) => {
            this.warnings.answered(RELAYER, chainRpcDependency(u.dstChain));
            return BigInt(b.balance);
          });
        balances.set(key, reading);
      }
      balance = await reading;
    } catch (err) {
      // No decision without a fresh balance: the order waits (a refund for the relayer's outage would be wrong).
      return this.warnings.failed(
        `balance:${u.dstChain}:${reasonOf(err)}`,
        err,
        { chain: u.dstChain, err: message(err) },
        'settlement: no inventory reading; deposits to fill there wait',
      );
    }
    const decision = await this.repo.decideFill(u, dstToken, order.amountOut, balance, step);
    this.refreshInventory(u.dstChain, u.order);
    this.log.info(
      { quote_hash: u.quoteHash, decision, ...(decision === 'refund' ? { reason: 'INVENTORY', balance: balance.toString() } : {}) },
      `settlement: ${decision} decided`,
    );
    this.viewChanged(u.quoteHash);
  }

  /** Asks for the step's transaction (sent once by the relayer) and moves on when its outcome is final. */
  private async drive(
    quoteHash: string,
    step: SettlementStep,
    wire: OrderWire,
    srcChain: string,
    dstChain: string,
    destinationCall?: DestinationCallView,
  ): Promise<void> {
    try {
      if (step === 'cancel' && (await this.repo.filledOnChain(quoteHash))) {
        // Filled after all (the chain is the judge): nothing to refund.
        await this.repo.advance(quoteHash, step, null);
        return;
      }
      const chain = step === 'refund' ? srcChain : dstChain;
      const info = this.registry.chain(chain);
      const call = info ? operatorCall(step, wire, info, this.registry, destinationCall) : undefined;
      if (!call)
        return this.warnings.once(`router:${chain}`, { chain }, 'settlement: no router for this chain in the registry; the order waits');
      const view = await this.send(step, quoteHash, chain, call);
      if (view.status === 'confirmed') {
        const next: SettlementStep | null = step === 'cancel' ? 'refund' : null;
        const moved = step === 'fill' ? await this.repo.filled(quoteHash) : await this.repo.advance(quoteHash, step, next);
        if (moved) this.log.info({ quote_hash: quoteHash, step, tx_hash: view.tx_hash }, 'settlement: step confirmed');
        if (moved && step === 'fill') this.refreshInventory(dstChain, wire);
      } else if (view.status === 'failed') {
        const error = `${step}: ${view.error ?? 'failed'}`;
        if (step === 'fill') {
          if (await this.repo.fillFailed(quoteHash, this.refundStep(srcChain, dstChain), error)) {
            this.log.warn({ quote_hash: quoteHash, error }, 'settlement: fill failed; refunding');
            this.viewChanged(quoteHash);
            this.refreshInventory(dstChain, wire);
          }
        } else if (await this.repo.stuck(quoteHash, step, error)) {
          this.log.error({ quote_hash: quoteHash, error }, 'settlement: step failed; an operator must look');
        }
      }
    } catch (err) {
      this.warnings.failed(
        `drive:${chainOf(step, srcChain, dstChain)}:${reasonOf(err)}`,
        err,
        { quote_hash: quoteHash, step, err: message(err) },
        'settlement: step not sent this pass; retried',
      );
    }
  }

  private async send(kind: OperatorTxKind, quoteHash: string, chain: string, call: OperatorCall): Promise<OperatorTxView> {
    const view = await this.rpc.call(
      SendOperatorTxRpc,
      { kind, quote_hash: quoteHash, chain, call },
      { timeoutMs: this.config.requestTimeoutMs },
    );
    this.warnings.answered(RELAYER);
    return view;
  }

  /**
   * A same-chain order is whole on one router (or the vault), which excludes fill and refund itself;
   * an EVM destination cancels first; a Solana destination has no router to record a cancel, so the
   * refund goes at once: only this system fills there, and its fill is settled (or failed) by then.
   */
  private refundStep(srcChain: string, dstChain: string): SettlementStep {
    return srcChain === dstChain || this.vmOf(dstChain) !== 'evm' ? 'refund' : 'cancel';
  }

  /** Quoting sees the new balance and reservations at once, not at the next scheduled read. */
  private refreshInventory(chain: string, wire: OrderWire): void {
    const vm = this.vmOf(chain);
    if (vm) void this.inventory?.refresh(chain, dstTokenKey(vm, orderFromWire(wire).order, wire)).catch(() => undefined);
  }

  /** The order view shows the decision (and a refund's reason) before the chain does: push it to SSE and webhooks now. */
  private viewChanged(quoteHash: string): void {
    void this.updates
      ?.changed(quoteHash)
      .catch((err: unknown) =>
        this.log.warn({ quote_hash: quoteHash, err: message(err) }, 'settlement: view change not pushed; the next change pushes it'),
      );
  }

  private vmOf(chain: string): 'evm' | 'svm' | undefined {
    return this.registry.chain(chain)?.vm;
  }
}

/** The relayer as a dependency (the name its outage has in the log). */
const RELAYER = serviceDependency(SendOperatorTxRpc);
const chainOf = (step: SettlementStep, src: string, dst: string) => (step === 'refund' ? src : dst);
const message = (err: unknown) => (err instanceof Error ? err.message.split('\n')[0]! : String(err));
const reasonOf = (err: unknown) =>
  err instanceof RpcError ? (err.status.code === Code.FAILED_PRECONDITION ? 'precondition' : String(err.status.code)) : 'error';
