import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CCTP_MESSAGE_TRANSMITTER_V2_ABI, CCTP_TOKEN_MESSENGER_V2_ABI, addressToBytes32, cctpDomainOf } from '@xchain/cctp';
import {
  type OperatorTxKind,
  type OperatorTxView,
  type RebalanceMoveView,
  type SettlementReport,
  SendOperatorTxRpc,
} from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import { fromBytes32 } from '@xchain/order-codec';
import { Clock, Ids, LOGGER, Metrics, Periodic, token } from '@xchain/service-kit';
import type { Histogram } from 'prom-client';
import type { Logger } from '@xchain/telemetry';
import { type Address, type Hex, encodeFunctionData, erc20Abi, getAddress, zeroHash } from 'viem';
import { QUOTING_CONFIG } from '../config.tokens';
import { InventoryBook } from '../inventory/inventory-book';
import type { QuotingConfig } from '../quoting-config';
import { tokenKey } from '../registry/addresses';
import { RegistryCache } from '../registry/registry-cache';
import { Attestations } from './attestations';
import { type ChainHolding, type TokenPlan, planToken } from './rebalance-plan';
import { type NewMove, type RebalanceMove, RebalanceRepository } from './rebalance.repository';

export interface RebalanceConfig {
  enabled: boolean;
  pollMs: number;
  stuckAfterMs: number;
  tokenMessenger: Address;
  messageTransmitter: Address;
  minFinalityThreshold: number;
  maxFeeBps: bigint;
  requestTimeoutMs: number;
}
export const REBALANCE_CONFIG = token<RebalanceConfig>('REBALANCE_CONFIG');

/** The only token moved automatically: CCTP burns and mints USDC. */
const MOVED = 'USDC';

/** What the operator's report shows of one token: its plan (holdings against targets) and its moves. */
export interface TokenPicture {
  token: string;
  plan: TokenPlan;
  /** Chains whose holdings could not be read this pass (no reading, or too old). */
  unread: string[];
}

/**
 * Keeps the operator's inventory where quotes need it (issue 47). Each pass reads every target
 * token's holdings per chain (the filler's balance less what open fills reserve, the deposits due
 * back by claims, and the moves on their way), plans a move into each chain below its threshold
 * (`planToken`), and takes each open move one step further: approve the TokenMessenger, burn on the
 * source (`depositForBurn`), fetch the attestation, mint on the destination (`receiveMessage`).
 * Every transaction goes through the relayer's lanes keyed by the move (kinds approve, burn, mint),
 * so a step asked twice is one transaction; the move row moves on only from the state before it.
 * A burn whose attestation does not come is shown as stuck, never burned again.
 */
@Injectable()
export class Rebalancer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop: Periodic;
  private readonly warned = new Set<string>();
  /** What each target token's last reading made available, by `chain:token`: a change wakes a pass. */
  private readonly lastAvailable = new Map<string, bigint>();
  private pictures: TokenPicture[] = [];
  private readonly duration: Histogram<'token' | 'src' | 'dst'>;

  constructor(
    @Inject(RebalanceRepository) private readonly repo: RebalanceRepository,
    @Inject(InventoryBook) private readonly inventory: Pick<InventoryBook, 'reading' | 'refresh' | 'maxAgeMs' | 'onReading'>,
    @Inject(RegistryCache) private readonly registry: Pick<RegistryCache, 'chain' | 'bySymbol'>,
    @Inject(RpcClient) private readonly rpc: Pick<RpcClient, 'call'>,
    @Inject(Attestations) private readonly attestations: Pick<Attestations, 'ofBurn'>,
    @Inject(QUOTING_CONFIG) private readonly quoting: Pick<QuotingConfig, 'inventory_targets'>,
    @Inject(REBALANCE_CONFIG) private readonly config: RebalanceConfig,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(Ids) private readonly ids: Ids,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(Metrics) metrics: Metrics,
  ) {
    this.loop = new Periodic(
      () => this.pass(),
      config.pollMs,
      (err) => this.log.warn({ err: message(err) }, 'rebalancing pass failed; next pass retries'),
      // With nothing open and nothing to plan a pass is a few queries for nothing: the pause doubles up
      // to 8 polls, and a reading of a target token that changed, or is below its chain's threshold,
      // wakes the next pass at once (so the report's holdings are never older than the last change).
      { idleMaxMs: config.pollMs * 8 },
    );
    inventory.onReading((chain, address, available) => {
      if (this.wakes(chain, address, available)) this.loop.wake();
    });
    const labels = ['token', 'chain'];
    const holding = metrics.gauge({
      name: 'rebalance_holding',
      help: "The operator's holdings of a token on a chain (filler + claims due + moves in), base units",
      labelNames: labels,
    });
    const target = metrics.gauge({
      name: 'rebalance_target',
      help: 'The share of the holdings a chain should hold, base units',
      labelNames: labels,
    });
    const threshold = metrics.gauge({
      name: 'rebalance_threshold',
      help: 'Holdings below this plan a move into the chain (or alert, for a token not moved), base units',
      labelNames: labels,
    });
    const below = metrics.gauge({
      name: 'rebalance_below_threshold',
      help: '1 while a chain holds less than its threshold share of a token',
      labelNames: labels,
    });
    const inFlight = metrics.gauge({
      name: 'rebalance_moves_in_flight',
      help: 'Moves planned and not yet received',
      labelNames: ['token'],
    });
    const oldest = metrics.gauge({
      name: 'rebalance_oldest_burn_age_seconds',
      help: 'Seconds since the oldest burn still waiting for its attestation or mint was sent',
      labelNames: ['token'],
    });
    metrics
      .gauge({
        name: 'rebalance_stuck_after_seconds',
        help: 'A burn waiting longer than this for its attestation or mint is stuck (REBALANCE_STUCK_AFTER_MS)',
      })
      .set(config.stuckAfterMs / 1000);
    const stuck = metrics.gauge({
      name: 'rebalance_moves_stuck',
      help: 'Moves that were burned and cannot be completed without a person (state stuck)',
      labelNames: ['token'],
    });
    this.duration = metrics.histogram({
      name: 'rebalance_move_seconds',
      help: 'From a move planned to its mint received',
      labelNames: ['token', 'src', 'dst'],
      buckets: [5, 15, 30, 60, 120, 300, 900, 1800, 3600],
    });
    metrics.onScrape('rebalancing', async () => {
      for (const g of [holding, target, threshold, below]) g.reset();
      for (const p of this.pictures) {
        for (const c of p.plan.chains) {
          holding.set({ token: p.token, chain: c.chain }, Number(c.holding));
          target.set({ token: p.token, chain: c.chain }, Number(c.target));
          threshold.set({ token: p.token, chain: c.chain }, Number(c.threshold));
          below.set({ token: p.token, chain: c.chain }, c.holding < c.threshold ? 1 : 0);
        }
      }
      inFlight.reset();
      oldest.reset();
      stuck.reset();
      const [open, ended] = await Promise.all([this.repo.open(), this.repo.recent(200)]);
      const now = this.clock.nowMs();
      for (const t of Object.keys(this.quoting.inventory_targets)) {
        const mine = open.filter((m) => m.token === t);
        inFlight.set({ token: t }, mine.length);
        const burned = mine.filter((m) => m.burnedAt).map((m) => m.burnedAt!.getTime());
        oldest.set({ token: t }, burned.length > 0 ? (now - Math.min(...burned)) / 1000 : 0);
        stuck.set({ token: t }, ended.filter((m) => m.token === t && m.state === 'stuck').length);
      }
    });
  }

  onApplicationBootstrap(): void {
    // Off, passes still read holdings against targets (the report, the gauges and their alerts); they move nothing.
    if (Object.keys(this.quoting.inventory_targets).length > 0) this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  /** The last pass's view of every target token (the operator's report). */
  picture(): TokenPicture[] {
    return this.pictures;
  }

  /** The operator's report: each target token's last picture, its moves in flight and the latest ended. */
  async report(): Promise<SettlementReport['rebalancing']> {
    const [open, ended] = await Promise.all([this.repo.open(), this.repo.recent(20)]);
    const now = this.clock.nowMs();
    const view = (m: RebalanceMove): RebalanceMoveView => ({
      id: m.id,
      src_chain: m.srcChain,
      dst_chain: m.dstChain,
      amount: m.amount.toFixed(0),
      state: m.state,
      overdue:
        (m.state === 'burned' || m.state === 'attested') && m.burnedAt !== null && now - m.burnedAt.getTime() > this.config.stuckAfterMs,
      fee_executed: m.feeExecuted?.toFixed(0) ?? null,
      burn_tx: m.burnTx,
      mint_tx: m.mintTx,
      error: m.error,
      planned_at: m.plannedAt.toISOString(),
      secs: Math.max(
        0,
        Math.floor(
          ((m.receivedAt?.getTime() ?? (m.state === 'failed' || m.state === 'stuck' ? m.updatedAt.getTime() : now)) -
            m.plannedAt.getTime()) /
            1000,
        ),
      ),
    });
    return Object.keys(this.quoting.inventory_targets).map((token) => {
      const p = this.pictures.find((x) => x.token === token);
      return {
        token,
        moved: token === MOVED,
        total: (p?.plan.total ?? 0n).toString(),
        chains: (p?.plan.chains ?? []).map((c) => ({
          chain: c.chain,
          holding: c.holding.toString(),
          target: c.target.toString(),
          threshold: c.threshold.toString(),
          below_threshold: c.holding < c.threshold,
        })),
        unread: p?.unread ?? Object.keys(this.quoting.inventory_targets[token] ?? {}),
        moves: [...open, ...ended].filter((m) => m.token === token).map(view),
      };
    });
  }

  /**
   * Whether a fresh reading of a target token calls for a pass now: what is available changed since
   * the last reading, or is below its chain's threshold in the last pass.
   */
  private wakes(chain: string, address: string, available: bigint): boolean {
    for (const p of this.pictures) {
      const c = p.plan.chains.find((x) => x.chain === chain);
      if (!c) continue;
      const info = this.registry.chain(chain);
      const t = info && this.registry.bySymbol(info, p.token);
      if (!t || tokenKey(info.vm, t.address) !== address) continue;
      const key = `${chain}:${address}`;
      const changed = this.lastAvailable.get(key) !== available;
      this.lastAvailable.set(key, available);
      return changed || available < c.threshold;
    }
    return false;
  }

  /** One pass; resolves with Periodic.IDLE when no move was open and no chain was below its threshold. */
  async pass(): Promise<void | typeof Periodic.IDLE> {
    const open = await this.repo.open();
    let active = open.length > 0;
    if (this.config.enabled)
      await Promise.all(
        open.map((m) =>
          this.step(m).catch((err: unknown) =>
            this.warnOnce(
              `step:${m.id}:${m.state}`,
              { move: m.id, state: m.state, err: message(err) },
              'rebalancing: move not moved on this pass; retried',
            ),
          ),
        ),
      );
    const due = await this.repo.claimsDue();
    const pictures: TokenPicture[] = [];
    for (const [symbol, targets] of Object.entries(this.quoting.inventory_targets)) {
      const unread: string[] = [];
      const holdings: ChainHolding[] = [];
      for (const chain of Object.keys(targets)) {
        const h = this.holdingOf(symbol, chain, due);
        if (h) holdings.push(h);
        else unread.push(chain);
      }
      const movable = new Set(symbol === MOVED ? holdings.map((h) => h.chain).filter((c) => this.movable(c)) : []);
      const busy = new Set(open.filter((m) => m.token === symbol).map((m) => m.dstChain));
      const plan = planToken(this.withOpenOf(holdings, symbol, open), targets, movable, busy);
      pictures.push({ token: symbol, plan, unread });
      if (plan.moves.length > 0) active = true;
      // Planning on a partial picture could move toward a chain whose holdings were not counted; and
      // while a balance may or may not show a move yet, the move would be counted twice or not at all.
      if (
        unread.length > 0 ||
        plan.moves.length === 0 ||
        !this.config.enabled ||
        this.unsettled([...open, ...(await this.repo.recent(5))], symbol)
      )
        continue;
      const written = await this.repo.plan(async (current) => {
        if (this.unsettled(current, symbol)) return [];
        const again = planToken(
          this.withOpenOf(holdings, symbol, current),
          targets,
          movable,
          new Set(current.filter((m) => m.token === symbol).map((m) => m.dstChain)),
        );
        return again.moves.map((m): NewMove => ({
          id: this.ids.bytes32(),
          token: symbol,
          srcChain: m.src,
          dstChain: m.dst,
          amount: m.amount,
          maxFee: this.maxFee(m.amount),
        }));
      });
      for (const m of written)
        this.log.info(
          { move: m.id, token: symbol, src: m.srcChain, dst: m.dstChain, amount: m.amount.toString() },
          'rebalancing: move planned',
        );
    }
    this.pictures = pictures;
    return active ? undefined : Periodic.IDLE;
  }

  /** One step of a move, from its state: each is asked of the relayer until its transaction is final. */
  private async step(m: RebalanceMove): Promise<void> {
    switch (m.state) {
      case 'planned': {
        const src = this.usdc(m.srcChain);
        const view = await this.send(
          'approve',
          m.id,
          m.srcChain,
          src,
          encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [this.config.tokenMessenger, amountOf(m)] }),
        );
        if (view.status === 'confirmed') await this.repo.advance(m.id, 'planned', 'approved');
        else if (view.status === 'failed') await this.fail(m, 'planned', `APPROVE_FAILED: ${view.error ?? 'failed'}`);
        return;
      }
      case 'approved': {
        const recipient = this.inventory.reading(m.dstChain, this.usdc(m.dstChain))?.wallet;
        if (!recipient) throw new Error(`no filler wallet known on ${m.dstChain} yet`);
        const data = encodeFunctionData({
          abi: CCTP_TOKEN_MESSENGER_V2_ABI,
          functionName: 'depositForBurn',
          args: [
            amountOf(m),
            this.domain(m.dstChain),
            addressToBytes32(getAddress(recipient)),
            this.usdc(m.srcChain),
            zeroHash,
            BigInt(m.maxFee.toFixed(0)),
            this.config.minFinalityThreshold,
          ],
        });
        const view = await this.send('burn', m.id, m.srcChain, this.config.tokenMessenger, data);
        if (view.status === 'confirmed' && view.tx_hash) {
          if (await this.repo.advance(m.id, 'approved', 'burned', { burnTx: view.tx_hash })) {
            this.log.info({ move: m.id, tx: view.tx_hash, src: m.srcChain }, 'rebalancing: burned');
            void this.inventory.refresh(m.srcChain, this.usdc(m.srcChain)).catch(() => undefined);
          }
        } else if (view.status === 'failed') await this.fail(m, 'approved', `BURN_FAILED: ${view.error ?? 'failed'}`);
        return;
      }
      case 'burned': {
        const a = await this.attestations.ofBurn(this.domain(m.srcChain), m.burnTx!, addressToBytes32(this.config.tokenMessenger));
        if (a.kind === 'complete') {
          if (a.amount !== amountOf(m)) throw new Error(`the attested burn of ${m.burnTx} is ${a.amount}, not the move's ${amountOf(m)}`);
          await this.repo.advance(m.id, 'burned', 'attested', {
            message: a.message,
            attestation: a.attestation,
            feeExecuted: a.feeExecuted,
          });
        } else if (this.clock.nowMs() - m.burnedAt!.getTime() > this.config.stuckAfterMs) {
          this.warnOnce(
            `stuck:${m.id}`,
            { move: m.id, burn_tx: m.burnTx, src: m.srcChain, why: a.why },
            'rebalancing: burn still not attested; it is never burned again',
          );
        }
        return;
      }
      case 'attested': {
        const data = encodeFunctionData({
          abi: CCTP_MESSAGE_TRANSMITTER_V2_ABI,
          functionName: 'receiveMessage',
          args: [m.message as Hex, m.attestation as Hex],
        });
        const view = await this.send('mint', m.id, m.dstChain, this.config.messageTransmitter, data);
        // Anyone may relay a CCTP message: a mint refused because its nonce is used was received all the same.
        const received = view.status === 'confirmed' || (view.status === 'failed' && /Nonce already used/i.test(view.error ?? ''));
        if (received) {
          if (await this.repo.advance(m.id, 'attested', 'received', view.tx_hash ? { mintTx: view.tx_hash } : {})) {
            const secs = (this.clock.nowMs() - m.plannedAt.getTime()) / 1000;
            this.duration.observe({ token: m.token, src: m.srcChain, dst: m.dstChain }, secs);
            this.log.info({ move: m.id, tx: view.tx_hash, dst: m.dstChain, secs }, 'rebalancing: received');
            void this.inventory.refresh(m.dstChain, this.usdc(m.dstChain)).catch(() => undefined);
          }
        } else if (view.status === 'failed') {
          await this.repo.advance(m.id, 'attested', 'stuck', { error: `MINT_FAILED: ${view.error ?? 'failed'}` });
          this.log.error(
            { move: m.id, dst: m.dstChain, err: view.error },
            'rebalancing: the mint cannot land; a person must look (the burn is not repeated)',
          );
        }
        return;
      }
      default:
        return;
    }
  }

  /** A chain's holding of a token, or undefined without a fresh reading of its filler balance. */
  private holdingOf(symbol: string, chain: string, due: { chain: string; token: string; due: bigint }[]): ChainHolding | undefined {
    const info = this.registry.chain(chain);
    const t = info && this.registry.bySymbol(info, symbol);
    if (!info || !t) return undefined;
    const r = this.inventory.reading(chain, t.address);
    if (!r || r.ageMs > this.inventory.maxAgeMs) return undefined;
    const key = tokenKey(info.vm, t.address);
    const claimsDue = due
      .filter((d) => d.chain === chain && tokenKey(info.vm, fromBytes32(info.vm, d.token as Hex)) === key)
      .reduce((s, d) => s + d.due, 0n);
    return { chain, available: r.balance > r.reserved ? r.balance - r.reserved : 0n, claimsDue, inbound: 0n, outboundUnburned: 0n };
  }

  /** `holdings` with the open moves of `symbol` counted: on their way into the destination, promised out of a source not yet burned. */
  private withOpenOf(holdings: readonly ChainHolding[], symbol: string, open: readonly RebalanceMove[]): ChainHolding[] {
    return holdings.map((h) => {
      const mine = open.filter((m) => m.token === symbol);
      const inbound = mine.filter((m) => m.dstChain === h.chain).reduce((s, m) => s + amountOf(m) - BigInt(m.maxFee.toFixed(0)), 0n);
      const outboundUnburned = mine
        .filter((m) => m.srcChain === h.chain && (m.state === 'planned' || m.state === 'approved'))
        .reduce((s, m) => s + amountOf(m), 0n);
      return { ...h, inbound, outboundUnburned };
    });
  }

  /**
   * Whether a move of `symbol` is where the balances read may or may not show it yet: its burn
   * asked but not recorded (planned, approved: the chain may have mined it already), its mint asked
   * (attested: likewise), burned after its source balance was last read, or received after its
   * destination's was. Planning waits for the
   * next pass then. A move burned before the last reading of its source is unambiguous: out of the
   * source's balance, not yet in the destination's, and counted on its way in.
   */
  private unsettled(open: readonly RebalanceMove[], symbol: string): boolean {
    const now = this.clock.nowMs();
    const readBefore = (chain: string, at: Date) => {
      const r = this.inventory.reading(chain, this.usdc(chain));
      return !r || now - r.ageMs <= at.getTime();
    };
    return open.some((m) => {
      if (m.token !== symbol) return false;
      // Received: no longer counted on its way in, so its destination must have been read since.
      if (m.state === 'received') return m.receivedAt !== null && readBefore(m.dstChain, m.receivedAt);
      if (m.state === 'failed' || m.state === 'stuck') return false;
      if (m.state !== 'burned' || !m.burnedAt) return true;
      return readBefore(m.srcChain, m.burnedAt);
    });
  }

  private movable(chain: string): boolean {
    return this.registry.chain(chain)?.vm === 'evm' && cctpDomainOf(chain) !== undefined;
  }

  private domain(chain: string): number {
    const d = cctpDomainOf(chain);
    if (d === undefined) throw new Error(`${chain} has no CCTP domain`);
    return d;
  }

  /** The chain's USDC, as the registry lists it. */
  private usdc(chain: string): Address {
    const info = this.registry.chain(chain);
    const t = info && this.registry.bySymbol(info, MOVED);
    if (!t) throw new Error(`${chain} lists no ${MOVED}`);
    return getAddress(t.address);
  }

  /** CCTP `maxFee`: CCTP_MAX_FEE_BPS of the amount, rounded up (the operator pays at most this; less than the amount). */
  private maxFee(amount: bigint): bigint {
    if (this.config.minFinalityThreshold > 1000) return 0n;
    const fee = (amount * this.config.maxFeeBps + 9_999n) / 10_000n;
    return fee < amount ? fee : amount - 1n;
  }

  private async fail(m: RebalanceMove, from: 'planned' | 'approved', error: string): Promise<void> {
    if (await this.repo.advance(m.id, from, 'failed', { error }))
      this.log.warn({ move: m.id, error }, 'rebalancing: move failed before anything was burned');
  }

  private send(kind: OperatorTxKind, id: string, chain: string, to: Address, data: Hex): Promise<OperatorTxView> {
    return this.rpc.call(
      SendOperatorTxRpc,
      { kind, quote_hash: id, chain, call: { vm: 'evm', to, data, value: '0' } },
      { timeoutMs: this.config.requestTimeoutMs },
    );
  }

  private warnOnce(key: string, fields: Record<string, unknown>, msg: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.log.warn(fields, msg);
  }
}

const amountOf = (m: RebalanceMove): bigint => BigInt(m.amount.toFixed(0));
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
