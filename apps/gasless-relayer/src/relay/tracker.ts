import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@xchain/telemetry';
import { type Address, type Hex, type TransactionReceipt, keccak256, parseTransaction } from 'viem';
import { type RelayChain, RelayChains } from '../chain/relay-chains';
import { LaneTxRepository, type LaneTxWithTxs } from '../store/lane-tx.repository';
import { StatusEvents } from './status-events';
import { broadcast } from './broadcast';
import { ChainReplacement } from './chain-replaced';
import { Lanes } from './lanes';
import { NonceBook } from './nonces';
import { LOGGER, Periodic, token } from '@xchain/service-kit';
import { Sender } from './sender';

/** How often the tracker follows the submitted orders (RELAY_POLL_MS), and how much a replacement raises fees (RELAY_FEE_BUMP_PERCENT). */
export interface TrackerOptions {
  pollMs: number;
  bumpPercent: number;
}
export const TRACKER_OPTIONS = token<TrackerOptions>('TRACKER_OPTIONS');

/**
 * Follows every submitted order of every chain, once per poll: a receipt for any of its
 * transactions (replacements included) settles it once `confirmations` blocks are on top of it — confirmed,
 * or failed if it reverted; a transaction the node does not know is broadcast again (sent
 * before a crash, or dropped); one not mined after `replaceAfterBlocks` is replaced on the same
 * nonce with fees raised by `bumpPercent`. Works from the database alone, so it survives restarts.
 */
@Injectable()
export class Tracker {
  private readonly loop: Periodic;

  constructor(
    @Inject(RelayChains) private readonly chains: RelayChains,
    @Inject(LaneTxRepository) private readonly txs: LaneTxRepository,
    @Inject(Sender) private readonly sender: Sender,
    @Inject(Lanes) private readonly lanes: Lanes,
    @Inject(NonceBook) private readonly nonces: NonceBook,
    @Inject(StatusEvents) private readonly events: StatusEvents,
    @Inject(TRACKER_OPTIONS) private readonly opts: TrackerOptions,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(ChainReplacement) private readonly replaced?: ChainReplacement,
  ) {
    const pass = () =>
      Promise.all(
        this.chains
          .all()
          .map((c) => this.track(c).catch((err: unknown) => this.log.warn({ chain: c.name, err: message(err) }, 'tracking pass failed'))),
      );
    this.loop = new Periodic(pass, opts.pollMs, () => undefined);
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  async track(chain: RelayChain): Promise<void> {
    const seen = this.replaced?.generation(chain.name);
    const submitted = await this.txs.inStatus(chain.name, 'submitted');
    if (submitted.length === 0) return;
    const head = await chain.client.getBlockNumber({ cacheTime: 0 });
    const followAll = (orders: LaneTxWithTxs[]) =>
      Promise.all(
        orders.map((o) =>
          this.follow(chain, o, head).catch((err: unknown) =>
            this.log.warn({ quote_hash: o.id, err: message(err) }, 'order not followed this pass'),
          ),
        ),
      );
    if (!this.replaced || seen === undefined) return void (await followAll(submitted));
    // Per wallet: first whether the chain was replaced under it (then its orders are signed again,
    // not rebroadcast); its orders are followed only if no reset on the chain made these rows stale.
    const byWallet = new Map<string, LaneTxWithTxs[]>();
    for (const o of submitted) byWallet.set(o.wallet, [...(byWallet.get(o.wallet) ?? []), o]);
    await Promise.all([...byWallet].map(([wallet, mine]) => this.replaced!.guard(chain, wallet as Address, seen, () => followAll(mine))));
  }

  private async follow(chain: RelayChain, order: LaneTxWithTxs, head: bigint): Promise<void> {
    const receipt = await this.receiptOf(chain, order);
    if (receipt) {
      if (head - receipt.blockNumber < BigInt(chain.confirmations)) return; // blocks on top, as the chain watchers count
      const gasCostWei = receipt.gasUsed * receipt.effectiveGasPrice;
      const done =
        receipt.status === 'success'
          ? await this.txs.confirm(order.id, receipt.transactionHash, receipt.blockNumber, gasCostWei)
          : await this.txs.fail(order.id, 'submitted', `TX_REVERTED: ${receipt.transactionHash} reverted in block ${receipt.blockNumber}`, {
              txHash: receipt.transactionHash,
              gasCostWei,
            });
      if (done) await this.sender.finished(chain.name, order.id);
      return;
    }
    const latest = order.txs[order.txs.length - 1];
    if (!latest) return;
    // A transaction the node cannot show us is sent again: it may never have left before a crash,
    // or been dropped (a node evicts one whose fee cap the base fee has passed: replaced at once).
    const known = await chain.client.getTransaction({ hash: latest.txHash as Hex }).catch(() => null);
    if (!known) {
      const outcome = await broadcast(chain.client, latest.raw as Hex);
      if (outcome === 'nonce_used') return this.nonceTaken(chain, order, latest.nonce);
      if (outcome === 'underpriced') return this.replace(chain, order, latest.raw as Hex, head); // fees moved past it: now
      if (typeof outcome !== 'string') return; // the RPC failed: next pass
    }
    if (head - latest.sentBlock >= BigInt(chain.replaceAfterBlocks)) await this.replace(chain, order, latest.raw as Hex, head);
  }

  private async receiptOf(chain: RelayChain, order: LaneTxWithTxs): Promise<TransactionReceipt | undefined> {
    const receipts = await Promise.all(
      order.txs.map((t) => chain.client.getTransactionReceipt({ hash: t.txHash as Hex }).catch(() => undefined)),
    );
    return receipts.find((r) => r !== undefined);
  }

  /** The stored nonce was used, yet none of ours was mined: another transaction took it. Sign again on a fresh nonce. */
  private async nonceTaken(chain: RelayChain, order: LaneTxWithTxs, nonce: bigint): Promise<void> {
    if (await this.receiptOf(chain, order)) return; // ours after all: the next pass confirms it
    this.log.warn({ quote_hash: order.id, nonce: nonce.toString() }, 'nonce used by a transaction that is not ours; signing again');
    this.nonces.reset(chain.name, order.wallet as Address);
    if (await this.txs.requeue(order.id)) await this.lanes.enqueue(chain.name, order.wallet, order.id).catch(() => undefined);
  }

  /** Same nonce, same call, fees raised by at least bumpPercent on both fields (or to the current estimate if higher). */
  private async replace(chain: RelayChain, order: LaneTxWithTxs, raw: Hex, head: bigint): Promise<void> {
    const account = RelayChains.laneWallets(chain).find((w) => w.address === order.wallet)?.account;
    if (!account) return;
    const prev = parseTransaction(raw);
    if (prev.type !== 'eip1559') return;
    const now = await chain.client.estimateFeesPerGas();
    const bump = (v: bigint) => (v * BigInt(100 + this.opts.bumpPercent)) / 100n + 1n;
    const maxPriorityFeePerGas = max(bump(prev.maxPriorityFeePerGas ?? 0n), now.maxPriorityFeePerGas);
    const maxFeePerGas = max(max(bump(prev.maxFeePerGas ?? 0n), now.maxFeePerGas), maxPriorityFeePerGas);
    // Only the fields of the transaction itself: the parsed signature (r, s, yParity) must not ride along.
    const signed = await account.signTransaction({
      type: 'eip1559',
      chainId: prev.chainId!,
      nonce: prev.nonce!,
      to: prev.to!,
      data: prev.data!,
      value: prev.value ?? 0n,
      gas: prev.gas!,
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    const hash = keccak256(signed);
    if (
      !(await this.txs.addTx(order.id, {
        hash,
        nonce: BigInt(prev.nonce ?? 0),
        maxFeePerGas,
        maxPriorityFeePerGas,
        raw: signed,
        sentBlock: head,
      }))
    )
      return;
    const outcome = await broadcast(chain.client, signed);
    this.log.info(
      {
        quote_hash: order.id,
        tx_hash: hash,
        replaces: order.txs.length,
        outcome: typeof outcome === 'string' ? outcome : outcome.error,
      },
      'relay transaction replaced with higher fees',
    );
    const hashes = [...order.txs.map((t) => t.txHash), hash];
    if (order.kind === 'gasless')
      this.events.publish(chain.name, { quote_hash: order.id, status: 'submitted', tx_hash: hash, tx_hashes: hashes });
  }
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const message = (err: unknown) => (err instanceof Error ? err.message.split('\n')[0]! : String(err));
