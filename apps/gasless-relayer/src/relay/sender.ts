import type { Logger } from '@xchain/telemetry';
import { type Address, BaseError, HttpRequestError, type Hex, TimeoutError, keccak256 } from 'viem';
import type { RelayChains } from '../chain/relay-chains';
import { revertReason } from '../chain/revert-reason';
import { type OrderRepository, viewOf } from '../orders/order.repository';
import type { StatusEvents } from '../orders/status-events';
import { broadcast } from './broadcast';
import type { Holds } from './holds';
import type { NonceBook } from './nonces';

/** Gas above the estimate, so a state change between estimate and inclusion does not run out. */
const GAS_HEADROOM_PCT = 25n;

/**
 * A lane's work for one queued order: re-check it on chain (estimateGas is the last simulation
 * before gas is spent), take the wallet's next nonce, sign, store the transaction with the order
 * (queued → submitted) and only then broadcast it. A crash after the store is recovered by the
 * tracker, which rebroadcasts the stored transaction; nothing is ever signed twice for a nonce
 * without being stored first.
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

  async send(chainName: string, wallet: Address, quoteHash: string): Promise<void> {
    const order = await this.orders.find(quoteHash);
    if (!order || order.status !== 'queued') return; // already sent or finished
    if (order.holdState === 'holding') throw new Error('the sponsor hold is not confirmed yet');
    const chain = this.chains.byName(chainName);
    const account = chain?.wallets.find((w) => w.address === wallet)?.account;
    if (!chain || !account) throw new Error(`wallet ${wallet} is not configured on ${chainName}`);
    const to = order.executor as Address;
    const data = order.calldata as Hex;

    let gas: bigint;
    try {
      gas = await chain.client.estimateGas({ account: wallet, to, data });
    } catch (err) {
      if (transient(err)) throw err; // the RPC, not the order: retried
      const reason = revertReason(err);
      if (await this.orders.fail(quoteHash, 'queued', `SIMULATION_REVERTED: ${reason}`)) {
        this.log.info({ quote_hash: quoteHash, reason }, 'order failed before sending');
        await this.finished(chainName, quoteHash);
      }
      return;
    }
    const [fees, head, chainId] = await Promise.all([chain.client.estimateFeesPerGas(), chain.client.getBlockNumber({ cacheTime: 0 }), chain.chainId()]);
    const nonce = await this.nonces.take(chain, wallet);
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId: Number(chainId),
      to,
      data,
      nonce: Number(nonce),
      gas: gas + (gas * GAS_HEADROOM_PCT) / 100n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const hash = keccak256(raw);
    const stored = await this.orders.markSubmitted(quoteHash, { hash, nonce, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas, raw, sentBlock: head });
    if (!stored) return;
    this.nonces.advance(chainName, wallet, nonce);
    this.events.publish(chainName, { quote_hash: quoteHash, status: 'submitted', tx_hash: hash, tx_hashes: [hash] });
    const outcome = await broadcast(chain.client, raw);
    if (outcome === 'nonce_used') this.nonces.reset(chainName, wallet);
    if (outcome !== 'sent' && outcome !== 'known') {
      // The tracker decides: it finds a receipt, rebroadcasts, or signs again on a fresh nonce.
      this.log.warn({ quote_hash: quoteHash, tx_hash: hash, outcome }, 'broadcast did not go through');
    }
  }

  /** Publishes a finished order's state and closes its sponsor hold. */
  async finished(chain: string, quoteHash: string): Promise<void> {
    const order = await this.orders.find(quoteHash);
    if (!order) return;
    this.events.publish(chain, viewOf(order));
    await this.holds.close(order);
  }
}

/** An RPC that did not answer, as opposed to a call that reverted. */
export function transient(err: unknown): boolean {
  return err instanceof BaseError && err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null;
}
