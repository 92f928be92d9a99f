import { randomFillSync } from 'node:crypto';
import type { Hex } from '@xchain/order-codec';
import { token } from '@xchain/service-kit';

/** 32 random bytes as hex, for order salts and Permit2 nonces; injected so a test can fix them. */
export type RandomWord = () => Hex;
export const RANDOM_WORD = token<RandomWord>('RANDOM_WORD');

const WORD = 32;

/**
 * Random words cut from a buffer that the CSPRNG refills once every `words` calls, each byte
 * handed out once: one CSPRNG call per `words` words instead of one per word, two words per quote
 * (`quote-random.spec.ts` checks that no word repeats across refills).
 */
export function pooledRandomWords(words = 256): RandomWord {
  const pool = Buffer.allocUnsafe(WORD * words);
  let used = pool.length;
  return () => {
    if (used === pool.length) {
      randomFillSync(pool);
      used = 0;
    }
    const word = pool.toString('hex', used, used + WORD);
    used += WORD;
    return `0x${word}`;
  };
}

export const cryptoRandomWord: RandomWord = pooledRandomWords();
