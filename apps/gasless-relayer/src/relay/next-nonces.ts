import { Injectable } from '@nestjs/common';
import type { Address } from 'viem';

/**
 * What this process last used of each wallet's nonces on each chain: the next one it would sign.
 * The NonceBook reads and advances it; the ChainReplacement forgets a wallet's after resetting its
 * state on a replaced chain. Both hold it, so neither needs the other.
 */
@Injectable()
export class NextNonces {
  private readonly next = new Map<string, bigint>();

  get(chain: string, wallet: Address): bigint | undefined {
    return this.next.get(keyOf(chain, wallet));
  }

  /** The nonce `used` went out with a stored transaction: the next one follows it. */
  advance(chain: string, wallet: Address, used: bigint): void {
    this.next.set(keyOf(chain, wallet), used + 1n);
  }

  /** Forget what we thought: the next take reads the chain again. */
  forget(chain: string, wallet: Address): void {
    this.next.delete(keyOf(chain, wallet));
  }
}

const keyOf = (chain: string, wallet: Address) => `${chain}:${wallet}`;
