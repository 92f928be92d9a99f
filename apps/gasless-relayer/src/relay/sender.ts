import { Inject, Injectable } from '@nestjs/common';
import { LOGGER } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { isChainRpcUnavailable } from '@xchain/messaging';
import { type Address, type Hex, keccak256 } from 'viem';
import { type RelayChain, RelayChains, type RelayWallet } from '../chain/relay-chains';
import { revertReason } from '../chain/revert-reason';
import { GaslessOrderRepository, viewOf } from '../store/gasless-order.repository';
import { type LaneTx, LaneTxRepository, type SignedTx } from '../store/lane-tx.repository';
import { StatusEvents } from './status-events';
import { broadcast } from './broadcast';
import { Holds } from './holds';
import { type LaneCall, simulateInOrder } from './lane-simulation';
import { NonceBook } from './nonces';

/** Gas above an estimate (eth_estimateGas), so a state change between estimate and inclusion does not run out. */
const GAS_HEADROOM_PCT = 25n;
/**
 * Gas above what a simulated call used (eth_simulateV1 reports the gas used after refunds, and a
 * call's limit must also cover the refunded part and what EIP-150 keeps back from inner calls).
 */
const SIMULATED_GAS_HEADROOM_PCT = 50n;
/** Orders a lane signs and sends in one go (one fee read, one database transaction, one batched broadcast). */
const BATCH = 64;

/**
 * What the lane's simulation says of a queued order: the gas limit to sign it with; 'reverted'
 * (the order is failed now, nothing sent); 'transient' (the RPC, not the order); 'wait' (it cannot
 * be simulated behind the wallet's transactions in flight: sent once those are mined).
 */
type Judgement = bigint | 'reverted' | 'transient' | 'wait';

/**
 * A lane's work: every queued order of one wallet on one chain, oldest first, up to BATCH at a
 * time. The lane first takes the wallet's next nonce, then simulates the batch at that nonce, right
 * before signing: on the chain's head, behind every transaction of the wallet with a lower nonce
 * (those sent and not yet mined, then the batch's earlier orders), in the order they will be mined
 * (eth_simulateV1). An order whose call reverts there is failed (SIMULATION_REVERTED) without being
 * signed or using a nonce, so a transaction the simulation says reverts is never broadcast: two
 * orders of one wallet that cannot both succeed (the second needs what the first spends) leave the
 * second failed, not reverted on chain. The gas limit is the larger of what the simulation used
 * (with room) and eth_estimateGas of the call alone on the head (which also finds gas a call must
 * have without using it); an order that reverts alone on the head but not behind the wallet's
 * transactions in flight waits until those are mined. A node without eth_simulateV1 gets one transaction at a
 * time per wallet: the first queued order is estimated (eth_estimateGas on the head) only when
 * nothing of the wallet is in flight. The rest: given consecutive nonces, signed, and stored with
 * their orders (queued → submitted) before anything is broadcast. A crash after the store is
 * recovered by the tracker, which rebroadcasts the stored transactions; nothing is ever signed
 * for a nonce without being stored first, and stored nonces never leave a gap.
 */
@Injectable()
export class Sender {
  constructor(
    @Inject(RelayChains) private readonly chains: RelayChains,
    @Inject(LaneTxRepository) private readonly txs: LaneTxRepository,
    @Inject(GaslessOrderRepository) private readonly gasless: GaslessOrderRepository,
    @Inject(NonceBook) private readonly nonces: NonceBook,
    @Inject(StatusEvents) private readonly events: StatusEvents,
    @Inject(Holds) private readonly holds: Holds,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  /** The job of lane transaction `id` sends its whole lane's backlog; the jobs of the others then find nothing to do. */
  async send(chainName: string, wallet: Address, id: string): Promise<void> {
    const chain = this.chains.byName(chainName);
    const account = chain ? RelayChains.laneWallets(chain).find((w) => w.address === wallet)?.account : undefined;
    if (!chain || !account) throw new Error(`wallet ${wallet} is not configured on ${chainName}`);
    const batch = await this.txs.queuedForLane(chainName, wallet, BATCH);
    if (batch.length === 0) return;
    const head = await chain.client.getBlockNumber({ cacheTime: 0 });
    const first = await this.nonces.take(chain, wallet);
    const judged = await this.judge(chain, wallet, head, first, batch);
    const ready = batch.flatMap((o, i) => (typeof judged[i] === 'bigint' ? [{ order: o, gas: judged[i] }] : []));
    // An order the RPC did not judge, or that waits for the wallet's transactions in flight, stays
    // queued; its own job retries it (and the sweeper enqueues it again should the job give up).
    const own = judged[batch.findIndex((o) => o.id === id)];
    if (ready.length > 0) await this.sendBatch(chain, account, ready, first, head);
    if (own === 'transient') throw new Error('the RPC did not answer the simulation; retried');
    if (own === 'wait') throw new Error("waiting for the wallet's transactions in flight to be mined before simulating; retried");
  }

  /** Simulates `batch` at nonce `first` on block `head` (see the class): one judgement per order. */
  private async judge(chain: RelayChain, wallet: Address, head: bigint, first: bigint, batch: LaneTx[]): Promise<Judgement[]> {
    try {
      const mined = BigInt(await chain.client.getTransactionCount({ address: wallet, blockNumber: head }));
      const ahead = await this.txs.inFlight(chain.name, wallet, mined, first);
      const outcomes = await simulateInOrder(chain.client, wallet, head, ahead.map(callOf), batch.map(callOf));
      if (outcomes === 'unsupported') return await this.judgeAlone(chain, wallet, head, mined < first, batch);
      const judged = await Promise.all(
        batch.map(async (order, i): Promise<Judgement> => {
          const outcome = outcomes[i]!;
          if (!outcome.ok) {
            await this.failUnsent(chain.name, order, outcome.reason);
            return 'reverted';
          }
          // The limit: what the call used, with room, but never below eth_estimateGas, which also
          // finds what a call needs without using it (a destination call's gasleft() check).
          const estimate = await this.estimateOnHead(chain, wallet, head, order);
          const used = outcome.gasUsed + (outcome.gasUsed * SIMULATED_GAS_HEADROOM_PCT) / 100n;
          // It reverts alone on the head but not behind what is in flight: it needs those mined first.
          if (estimate === undefined) return 'wait';
          return used > estimate ? used : estimate;
        }),
      );
      // The orders after one that waits were simulated behind it: they wait too (a reverted one changed nothing).
      const firstWait = judged.indexOf('wait');
      return firstWait < 0 ? judged : judged.map((j, i) => (i > firstWait && typeof j === 'bigint' ? 'wait' : j));
    } catch (err) {
      if (isChainRpcUnavailable(err)) return batch.map(() => 'transient');
      throw err;
    }
  }

  /** eth_estimateGas of the order alone on the head, with room; undefined when it reverts there. */
  private async estimateOnHead(chain: RelayChain, wallet: Address, head: bigint, order: LaneTx): Promise<bigint | undefined> {
    try {
      const gas = await chain.client.estimateGas({ account: wallet, ...callOf(order), blockNumber: head });
      return gas + (gas * GAS_HEADROOM_PCT) / 100n;
    } catch (err) {
      if (isChainRpcUnavailable(err)) throw err;
      return undefined;
    }
  }

  /** Without eth_simulateV1: the first order alone, estimated on the head, once nothing of the wallet is in flight. */
  private async judgeAlone(chain: RelayChain, wallet: Address, head: bigint, inFlight: boolean, batch: LaneTx[]): Promise<Judgement[]> {
    const rest = batch.slice(1).map((): Judgement => 'wait');
    if (inFlight) return [...rest, 'wait'];
    const order = batch[0]!;
    try {
      const gas = await chain.client.estimateGas({ account: wallet, ...callOf(order), blockNumber: head });
      return [gas + (gas * GAS_HEADROOM_PCT) / 100n, ...rest];
    } catch (err) {
      if (isChainRpcUnavailable(err)) throw err;
      await this.failUnsent(chain.name, order, revertReason(err));
      return ['reverted', ...rest];
    }
  }

  /** queued → failed with the simulation's reason: nothing was signed, no nonce used, no gas spent. */
  private async failUnsent(chain: string, order: LaneTx, reason: string): Promise<void> {
    if (await this.txs.fail(order.id, 'queued', `SIMULATION_REVERTED: ${reason}`)) {
      this.log.info({ quote_hash: order.id, reason }, 'order failed before sending: its simulation at its nonce reverts');
      await this.finished(chain, order.id);
    }
  }

  private async sendBatch(
    chain: RelayChain,
    account: RelayWallet['account'],
    ready: { order: LaneTx; gas: bigint }[],
    first: bigint,
    head: bigint,
  ): Promise<void> {
    const wallet = account.address;
    const chainName = chain.name;

    const [fees, chainId] = await Promise.all([chain.client.estimateFeesPerGas(), chain.chainId()]);
    const signed = await Promise.all(
      ready.map(async ({ order, gas }, i): Promise<{ id: string; tx: SignedTx }> => {
        const nonce = first + BigInt(i);
        const raw = await account.signTransaction({
          type: 'eip1559',
          chainId: Number(chainId),
          to: order.target as Address,
          data: order.calldata as Hex,
          value: valueOf(order),
          nonce: Number(nonce),
          gas,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        });
        return {
          id: order.id,
          tx: {
            hash: keccak256(raw),
            nonce,
            maxFeePerGas: fees.maxFeePerGas,
            maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
            raw,
            sentBlock: head,
          },
        };
      }),
    );
    const kinds = new Map(ready.map(({ order }) => [order.id, order.kind]));
    let count: number;
    try {
      count = await this.txs.markSubmitted(signed);
    } catch (err) {
      if (!nonceStoredElsewhere(err)) throw err;
      // Another replica stored one of these nonces first (two jobs of this lane at once, or one
      // killed mid-batch): nothing of this batch was stored or sent; the retry takes fresh nonces.
      this.nonces.reset(chainName, wallet);
      throw new Error(`nonce ${first} of ${wallet} on ${chainName} was stored by another sender; the batch is signed again`);
    }
    const stored = signed.slice(0, count);
    if (stored.length === 0) return;
    this.nonces.advance(chainName, wallet, stored[stored.length - 1]!.tx.nonce);
    for (const { id: q, tx } of stored) {
      if (kinds.get(q) === 'gasless')
        this.events.publish(chainName, { quote_hash: q, status: 'submitted', tx_hash: tx.hash, tx_hashes: [tx.hash] });
    }
    // In nonce order, one after another: a node that gets nonce n+1 before n parks it, and some
    // (anvil's automine) mine it only when a later transaction arrives.
    const outcomes: Awaited<ReturnType<typeof broadcast>>[] = [];
    for (const { tx } of stored) outcomes.push(await broadcast(chain.client, tx.raw as Hex));
    if (outcomes.includes('nonce_used')) this.nonces.reset(chainName, wallet);
    outcomes.forEach((outcome, i) => {
      // The tracker decides: it finds a receipt, rebroadcasts, replaces, or signs again on a fresh nonce.
      if (outcome !== 'sent' && outcome !== 'known')
        this.log.warn({ quote_hash: stored[i]!.id, tx_hash: stored[i]!.tx.hash, outcome }, 'broadcast did not go through');
    });
  }

  /** Publishes a finished order's state and closes its sponsor hold (an operator transaction has neither: settlement asks for its state). */
  async finished(chain: string, id: string): Promise<void> {
    const order = await this.gasless.find(id);
    if (!order) return;
    this.events.publish(chain, viewOf(order));
    await this.holds.close(order);
  }
}

const valueOf = (order: LaneTx): bigint => BigInt(order.value.toFixed(0));

/** The call an order's transaction makes. */
const callOf = (order: LaneTx): LaneCall => ({ to: order.target as Address, data: order.calldata as Hex, value: valueOf(order) });

/** The unique (chain, wallet, nonce) key refused a stored nonce (Prisma's unique-constraint error). */
function nonceStoredElsewhere(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'P2002';
}
