import { Inject, Injectable } from '@nestjs/common';
import type { Address } from 'viem';
import type { RelayChain } from '../chain/relay-chains';
import { LaneTxRepository } from '../store/lane-tx.repository';
import { ChainReplacement } from './chain-replaced';
import { NextNonces } from './next-nonces';

/**
 * The next nonce of each wallet on each chain: the higher of what this replica last used (read
 * from the chain's pending count at first use and after any nonce error) and one past the highest
 * nonce stored in the database. The database is read on every take, because a lane's jobs may run
 * on any replica in turn: another one (alive or killed mid-batch) may have stored nonces this one
 * never saw. The unique (chain, wallet, nonce) key still guards the rare race of two replicas
 * taking the same nonce: the loser's batch is not stored, and it takes again (see Sender).
 */
@Injectable()
export class NonceBook {
  constructor(
    @Inject(LaneTxRepository) private readonly txs: LaneTxRepository,
    @Inject(NextNonces) private readonly next: NextNonces,
    @Inject(ChainReplacement) private readonly replaced?: ChainReplacement,
  ) {}

  async take(chain: RelayChain, wallet: Address): Promise<bigint> {
    // A chain replaced under us (its nonce behind ours, our transactions gone) is reset first: the
    // reset forgets the wallet's next nonce (NextNonces). Otherwise the check's own reads of the chain and the database serve the take too.
    const read = await this.replaced?.beforeTake(chain, wallet, this.next.get(chain.name, wallet), () =>
      this.txs.maxNonce(chain.name, wallet),
    );
    const known = this.next.get(chain.name, wallet);
    const [mine, stored] = read
      ? [known ?? read.pending, read.stored]
      : await Promise.all([
          known ?? chain.client.getTransactionCount({ address: wallet, blockTag: 'pending' }).then(BigInt),
          this.txs.maxNonce(chain.name, wallet),
        ]);
    const afterStored = stored === undefined ? 0n : stored + 1n;
    return mine > afterStored ? mine : afterStored;
  }

  /** The nonce `used` went out with a stored transaction: the next one follows it. */
  advance(chain: string, wallet: Address, used: bigint): void {
    this.next.advance(chain, wallet, used);
  }

  /** Forget what we thought: the next take reads the chain again. */
  reset(chain: string, wallet: Address): void {
    this.next.forget(chain, wallet);
  }
}
