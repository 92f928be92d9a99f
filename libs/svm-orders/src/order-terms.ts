import { type OrderWire, ZERO_BYTES32, fromBytes32, hashOrder, orderFromWire } from '@xchain/order-codec';

/** SOL itself, where a token's place holds the zero bytes32 (the System program's id). */
export const SOL = 'SOL';
export type SvmMint = string; // base58 mint, or SOL

/** What a Solana step of an order is checked against, read from the wire order (bytes32 → base58). */
export interface SvmOrderTerms {
  quoteHash: string;
  /** Deposits and refunds: the source token (SOL or a mint). */
  srcToken: SvmMint;
  /** Fills: the destination token (SOL or a mint). */
  dstToken: SvmMint;
  amountIn: bigint;
  amountOut: bigint;
  minAmountOut: bigint;
  gasDrop: bigint;
  /** As base58 keys; only meaningful for the side of the order that is on Solana. */
  recipient: string;
  refundAddress: string;
  depositTarget: string;
}

const mintOf = (bytes32: string): SvmMint => (bytes32 === ZERO_BYTES32 ? SOL : fromBytes32('svm', bytes32 as `0x${string}`));

/**
 * The terms of a wire order (as a quote returns it, referrers included) with its quote hash
 * recomputed, so a memo can never name one order while the transfers follow another.
 */
export function svmOrderTerms(wire: OrderWire): SvmOrderTerms {
  const { order } = orderFromWire(wire);
  return {
    quoteHash: hashOrder(order),
    srcToken: mintOf(order.srcToken),
    dstToken: mintOf(order.dstToken),
    amountIn: order.amountIn,
    amountOut: order.amountOut,
    minAmountOut: order.minAmountOut,
    gasDrop: order.gasDrop,
    recipient: fromBytes32('svm', order.recipient),
    refundAddress: fromBytes32('svm', order.refundAddress),
    depositTarget: fromBytes32('svm', order.depositTarget),
  };
}
