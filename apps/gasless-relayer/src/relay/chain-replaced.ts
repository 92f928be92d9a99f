import { Inject, Injectable } from '@nestjs/common';
import { LOGGER } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { type Address, type Hex, TransactionNotFoundError, TransactionReceiptNotFoundError } from 'viem';
import type { RelayChain } from '../chain/relay-chains';
import { LaneTxRepository } from '../store/lane-tx.repository';
import { Lanes } from './lanes';
import { NextNonces } from './next-nonces';

/**
 * Notices that a chain was replaced under the relayer (a devnet started afresh while our database
 * kept its orders, or a reorg past the confirmation depth) and resets one wallet's state on it.
 *
 * The evidence, per wallet, all of it required:
 * 1. the chain's nonce (mined transactions) is at or below the highest nonce we saw mined there,
 *    and the chain has no receipt for that transaction: the chain lost a transaction it had mined
 *    and confirmed. A live chain never does this (a transaction of ours merely dropped from the
 *    mempool was never mined: its nonce is at or above the chain's, which stays past every mined one);
 * 2. the chain knows none of the transactions of our orders still `submitted` on it (neither mined
 *    nor pending). This is what makes signing those orders again safe: a transaction the chain has
 *    never seen, on a chain that has lost its history, can never be mined there; one it knows might
 *    be, so while any is known nothing is reset (and a warning says so, once).
 *
 * The reset, in one database transaction: the submitted orders checked go back to `queued` without
 * a nonce (their lane signs them again on the chain's real nonce), and the finished rows keep their
 * status and nonce as history with `chain_replaced_at` set, so their nonces no longer count
 * (next nonce, one order per nonce). One warning is logged. Then this process forgets the wallet's
 * next nonce there (NextNonces) and enqueues the requeued orders on its lane.
 *
 * Detection, reset, the tracker's following of a wallet's orders (it rebroadcasts what the chain
 * does not know) and the lane's nonce take are serialized per chain and wallet in this process
 * (`exclusive`): a rebroadcast can never slip in between the check that the chain knows none of our
 * transactions and the reset that signs their orders again.
 */
@Injectable()
export class ChainReplacement {
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly generations = new Map<string, number>();
  private readonly warnedKnown = new Set<string>();

  constructor(
    @Inject(LaneTxRepository) private readonly txs: Pick<LaneTxRepository, 'lastMined' | 'submittedWithTxs' | 'resetReplacedChain'>,
    @Inject(LOGGER) private readonly log: Pick<Logger, 'warn'>,
    @Inject(NextNonces) private readonly nonces: Pick<NextNonces, 'forget'>,
    @Inject(Lanes) private readonly lanes: Pick<Lanes, 'enqueue'>,
  ) {}

  /** Runs `fn` alone for this chain and wallet (detections, resets, follows, nonce takes). */
  exclusive<T>(chain: string, wallet: string, fn: () => Promise<T>): Promise<T> {
    const key = keyOf(chain, wallet);
    const before = this.locks.get(key) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(key, tail);
    void tail.then(() => {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    });
    return run;
  }

  /** Counts the resets of wallets' state on a chain: rows read before a reset may be stale after it. */
  generation(chain: string): number {
    return this.generations.get(chain) ?? 0;
  }

  /**
   * The tracker's pass over one wallet: when the chain was replaced its state is reset (and `follow`
   * skipped); otherwise `follow` runs, unless a reset on the chain since `seen` made its rows stale.
   */
  async guard(chain: RelayChain, wallet: Address, seen: number, follow: () => Promise<unknown>): Promise<void> {
    await this.exclusive(chain.name, wallet, async () => {
      if (this.generation(chain.name) !== seen) return;
      if (await this.detectAndReset(chain, wallet)) return;
      await follow();
    });
  }

  /**
   * Before a lane takes its next nonce: cheap unless the chain's pending nonce is behind what we
   * would sign next (`cached`, or the highest nonce stored + 1), as on a replaced chain; then the
   * full check runs, and resets the wallet's state when the chain was replaced. Answers what it
   * read (the chain's pending nonce, the highest stored) for the take to use, or undefined after a
   * reset (what it read is stale then).
   */
  async beforeTake(
    chain: RelayChain,
    wallet: Address,
    cached: bigint | undefined,
    storedMax: () => Promise<bigint | undefined>,
  ): Promise<{ pending: bigint; stored: bigint | undefined } | undefined> {
    return this.exclusive(chain.name, wallet, async () => {
      const [count, stored] = await Promise.all([chain.client.getTransactionCount({ address: wallet, blockTag: 'pending' }), storedMax()]);
      const pending = BigInt(count);
      const next = [cached, stored === undefined ? undefined : stored + 1n].reduce<bigint | undefined>(
        (a, b) => (b !== undefined && (a === undefined || b > a) ? b : a),
        undefined,
      );
      if (next === undefined || pending >= next) return { pending, stored };
      return (await this.detectAndReset(chain, wallet)) ? undefined : { pending, stored };
    });
  }

  /** The check and the reset described above; true when the wallet's state was reset. Call under `exclusive`. */
  private async detectAndReset(chain: RelayChain, wallet: Address): Promise<boolean> {
    const key = keyOf(chain.name, wallet);
    const mined = await this.txs.lastMined(chain.name, wallet);
    if (mined?.txNonce == null || !mined.minedTxHash) return false;
    const chainNonce = BigInt(await chain.client.getTransactionCount({ address: wallet, blockTag: 'latest' }));
    if (chainNonce > mined.txNonce) return false; // every nonce we saw mined is still used there
    if (await receiptExists(chain, mined.minedTxHash as Hex)) return false;
    const submitted = await this.txs.submittedWithTxs(chain.name, wallet);
    for (const o of submitted) {
      for (const t of o.txs) {
        if (!(await txKnown(chain, t.txHash as Hex))) continue;
        // It could still be mined: signing its order again could send it twice. Left to the tracker.
        if (!this.warnedKnown.has(key)) {
          this.warnedKnown.add(key);
          this.log.warn(
            { chain: chain.name, wallet, chain_nonce: chainNonce.toString(), mined_nonce: mined.txNonce.toString(), known_tx: t.txHash },
            'chain lost a transaction we saw mined, but knows one still pending: its state is not reset while it does',
          );
        }
        return false;
      }
    }
    const { requeued, retired } = await this.txs.resetReplacedChain(chain.name, wallet, submitted);
    this.generations.set(chain.name, this.generation(chain.name) + 1);
    this.warnedKnown.delete(key);
    this.log.warn(
      {
        chain: chain.name,
        wallet,
        chain_nonce: chainNonce.toString(),
        mined_nonce: mined.txNonce.toString(),
        missing_tx: mined.minedTxHash,
        requeued: requeued.length,
        retired: retired,
      },
      'chain replaced (it lost transactions we saw mined; a devnet started afresh or a reorg past the depth): this wallet forgets its nonces there and its unmined orders are signed again',
    );
    // The wallet forgets its nonces there, its unmined orders are sent again (else the sweeper does).
    this.nonces.forget(chain.name, wallet);
    for (const q of requeued) await this.lanes.enqueue(chain.name, wallet, q).catch(() => undefined);
    return true;
  }
}

const keyOf = (chain: string, wallet: string) => `${chain}:${wallet.toLowerCase()}`;

/** Whether the chain has a receipt for `hash`; an RPC failure throws (it is not an answer). */
async function receiptExists(chain: RelayChain, hash: Hex): Promise<boolean> {
  try {
    await chain.client.getTransactionReceipt({ hash });
    return true;
  } catch (err) {
    if (err instanceof TransactionReceiptNotFoundError) return false;
    throw err;
  }
}

/** Whether the chain knows `hash` (mined or pending); an RPC failure throws (it is not an answer). */
async function txKnown(chain: RelayChain, hash: Hex): Promise<boolean> {
  try {
    await chain.client.getTransaction({ hash });
    return true;
  } catch (err) {
    if (err instanceof TransactionNotFoundError) return false;
    throw err;
  }
}
