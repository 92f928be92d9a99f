import type { Address } from 'viem';
import type { RelayChain } from '../chain/relay-chains';
import type { OrderRepository } from '../orders/order.repository';
import type { ChainReplacement } from './chain-replaced';

/**
 * The next nonce of each wallet on each chain. Read from the chain (pending count) and from the
 * database (a nonce stored but not yet broadcast when the process died) at first use and after
 * any nonce error; advanced in memory in between, since a lane sends one transaction at a time.
 */
export class NonceBook {
  private readonly next = new Map<string, bigint>();

  constructor(
    private readonly orders: OrderRepository,
    private readonly replaced?: ChainReplacement,
  ) {}

  async take(chain: RelayChain, wallet: Address): Promise<bigint> {
    const key = `${chain.name}:${wallet}`;
    // A chain replaced under us (its nonce behind ours, our transactions gone) is reset first: reset() below forgets.
    await this.replaced?.beforeTake(chain, wallet, this.next.get(key), () => this.orders.maxNonce(chain.name, wallet));
    let n = this.next.get(key);
    if (n === undefined) {
      const [pending, stored] = await Promise.all([
        chain.client.getTransactionCount({ address: wallet, blockTag: 'pending' }),
        this.orders.maxNonce(chain.name, wallet),
      ]);
      n = stored !== undefined && stored + 1n > BigInt(pending) ? stored + 1n : BigInt(pending);
    }
    return n;
  }

  /** The nonce `used` went out with a stored transaction: the next one follows it. */
  advance(chain: string, wallet: Address, used: bigint): void {
    this.next.set(`${chain}:${wallet}`, used + 1n);
  }

  /** Forget what we thought: the next take reads the chain again. */
  reset(chain: string, wallet: Address): void {
    this.next.delete(`${chain}:${wallet}`);
  }
}
