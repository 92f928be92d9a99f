import { type Order, ZERO_BYTES32, toBytes32 } from './order';

/** A realistic EVM-source order for specs (exported for other libs' and apps' tests; never used by running code). */
export function sampleOrder(over: Partial<Order> = {}): Order {
  return {
    version: 1,
    salt: `0x${'ab'.repeat(32)}`,
    srcChainId: 1n,
    dstChainId: 792703809n,
    srcToken: toBytes32('evm', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
    dstToken: toBytes32('svm', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
    amountIn: 1_000_000_000n,
    amountOut: 999_000_000n,
    minAmountOut: 998_000_000n,
    recipient: toBytes32('svm', 'ASWgJqYMFCL2iGNKV2TMFCJpH42NzDDpF8bYXkwDwnPX'),
    refundAddress: toBytes32('evm', '0x71268d7045f6faf62bdea68ce4bae4fe2184fb8b'),
    gasDrop: 0n,
    tradeType: 1,
    slippageBps: 10,
    srcSlippageBps: 10,
    dstGasNative: 10_000n,
    sponsorGas: 0n,
    gasless: false,
    sponsorFees: false,
    referrersHash: ZERO_BYTES32,
    issuedAt: 1_795_000_000n,
    expiresAt: 1_795_001_800n,
    depositTarget: toBytes32('evm', '0x7CCfEacBa472f31962CB515Fe4cE4477D15C4a04'),
    ...over,
  };
}
