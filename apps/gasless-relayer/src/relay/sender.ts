import type { GaslessOrder } from '@xchain/gasless-relayer-db';
import type { Logger } from '@xchain/telemetry';
import { isChainRpcUnavailable } from '@xchain/messaging';
import { type Address, type Hex, keccak256 } from 'viem';
import { type RelayChain, RelayChains, type RelayWallet } from '../chain/relay-chains';
import { revertReason } from '../chain/revert-reason';
import { type OrderRepository, type SignedTx, viewOf } from '../orders/order.repository';
import type { StatusEvents } from '../orders/status-events';
import { broadcast } from './broadcast';
import type { Holds } from './holds';
import type { NonceBook } from './nonces';

/** Gas above the estimate, so a state change between estimate and inclusion does not run out. */
const GAS_HEADROOM_PCT = 25n;
/** Orders a lane signs and sends in one go (one fee read, one database transaction, one batched broadcast). */
const BATCH = 64;

/**
 * A lane's work: every queued order of one wallet on one chain, oldest first, up to BATCH at a
 * time. Each is re-checked on chain (estimateGas is the last simulation before gas is spent; a
 * revert fails it without using a nonce), given the wallet's next nonce, signed, and stored with
 * its order (queued → submitted) before anything is broadcast. A crash after the store is
 * recovered by the tracker, which rebroadcasts the stored transactions; nothing is ever signed
 * for a nonce without being stored first, and stored nonces never leave a gap.
 */
export class Sender {
  constructor(
    private readonly chains: RelayChains,
    private readonly orders: OrderRepository,
    private readonly nonces: NonceBook,
    private readonly events: StatusEvents,
    private readonly holds: Holds,
    private readonly log: Logger,
  ) {}

  /** The job of `quoteHash` sends its whole lane's backlog; the jobs of the others then find nothing to do. */
  async send(chainName: string, wallet: Address, quoteHash: string): Promise<void> {
    const chain = this.chains.byName(chainName);
    const account = chain ? RelayChains.laneWallets(chain).find((w) => w.address === wallet)?.account : undefined;
    if (!chain || !account) throw new Error(`wallet ${wallet} is not configured on ${chainName}`);
    const batch = await this.orders.queuedForLane(chainName, wallet, BATCH);
    const gas = await Promise.all(batch.map((o) => this.estimate(chain, wallet, o)));
    const ready = batch.flatMap((o, i) => (typeof gas[i] === 'bigint' ? [{ order: o, gas: gas[i] }] : []));
    // An order whose estimate the RPC did not answer stays queued; its own job retries it.
    const retryOwn = batch.some((o, i) => o.quoteHash === quoteHash && gas[i] === 'transient');
    if (ready.length > 0) await this.sendBatch(chain, account, ready);
    if (retryOwn) throw new Error('the RPC did not answer the gas estimate; retried');
  }

  private async sendBatch(
    chain: RelayChain,
    account: RelayWallet['account'],
    ready: { order: GaslessOrder; gas: bigint }[],
  ): Promise<void> {
    const wallet = account.address;
    const chainName = chain.name;

    const [fees, head, chainId] = await Promise.all([
      chain.client.estimateFeesPerGas(),
      chain.client.getBlockNumber({ cacheTime: 0 }),
      chain.chainId(),
    ]);
    const first = await this.nonces.take(chain, wallet);
    const signed = await Promise.all(
      ready.map(async ({ order, gas: estimate }, i): Promise<{ quoteHash: string; tx: SignedTx }> => {
        const nonce = first + BigInt(i);
        const raw = await account.signTransaction({
          type: 'eip1559',
          chainId: Number(chainId),
          to: order.executor as Address,
          data: order.calldata as Hex,
          value: valueOf(order),
          nonce: Number(nonce),
          gas: estimate + (estimate * GAS_HEADROOM_PCT) / 100n,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        });
        return {
          quoteHash: order.quoteHash,
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
    const kinds = new Map(ready.map(({ order }) => [order.quoteHash, order.kind]));
    let count: number;
    try {
      count = await this.orders.markSubmitted(signed);
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
    for (const { quoteHash: q, tx } of stored) {
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
        this.log.warn({ quote_hash: stored[i]!.quoteHash, tx_hash: stored[i]!.tx.hash, outcome }, 'broadcast did not go through');
    });
  }

  /** The gas of an order's call, or: 'reverted' (the order is failed now) or 'transient' (the RPC, not the order). */
  private async estimate(chain: RelayChain, wallet: Address, order: GaslessOrder): Promise<bigint | 'reverted' | 'transient'> {
    try {
      return await chain.client.estimateGas({
        account: wallet,
        to: order.executor as Address,
        data: order.calldata as Hex,
        value: valueOf(order),
      });
    } catch (err) {
      if (isChainRpcUnavailable(err)) return 'transient';
      const reason = revertReason(err);
      if (await this.orders.fail(order.quoteHash, 'queued', `SIMULATION_REVERTED: ${reason}`)) {
        this.log.info({ quote_hash: order.quoteHash, reason }, 'order failed before sending');
        await this.finished(chain.name, order.quoteHash);
      }
      return 'reverted';
    }
  }

  /** Publishes a finished order's state and closes its sponsor hold (an operator transaction has neither: settlement asks for its state). */
  async finished(chain: string, quoteHash: string): Promise<void> {
    const order = await this.orders.find(quoteHash);
    if (!order || order.kind !== 'gasless') return;
    this.events.publish(chain, viewOf(order));
    await this.holds.close(order);
  }
}

const valueOf = (order: GaslessOrder): bigint => BigInt(order.value.toFixed(0));

/** The unique (chain, wallet, nonce) key refused a stored nonce (Prisma's unique-constraint error). */
function nonceStoredElsewhere(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'P2002';
}
