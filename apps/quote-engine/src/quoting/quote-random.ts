import { randomBytes } from 'node:crypto';
import type { Hex } from '@xchain/order-codec';

/** 32 random bytes as hex, for order salts and Permit2 nonces; injected so a test can fix them. */
export type RandomWord = () => Hex;
export const RANDOM_WORD = Symbol('RANDOM_WORD');

export const cryptoRandomWord: RandomWord = () => `0x${randomBytes(32).toString('hex')}`;
