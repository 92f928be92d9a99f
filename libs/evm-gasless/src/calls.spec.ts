import { encodeOrder, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { decodeFunctionData, encodeFunctionData, zeroAddress } from 'viem';
import { XCHAIN_ROUTER_ABI } from './abi';
import { cancelTx, claimTx, depositTx, dstTokenOf, fillTx, refundTx, retainedUntil } from './calls';

const ROUTER = '0xB662F3402a4748403b63cE240BF6b9EeB55e5727';
const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

describe('fillTx and refundTx', () => {
  const erc20 = sampleOrder({ dstChainId: 8453n, dstToken: toBytes32('evm', USDC), gasDrop: 7n });
  const native = sampleOrder({ dstChainId: 8453n, dstToken: toBytes32('evm', zeroAddress), gasDrop: 7n });

  it('sends the gas drop as value for an ERC-20, and amount + gas drop for the native asset', () => {
    expect(fillTx(erc20, 1000n, ROUTER)).toMatchObject({ to: ROUTER, value: 7n });
    expect(fillTx(native, 1000n, ROUTER)).toMatchObject({ to: ROUTER, value: 1007n });
    expect(fillTx({ ...native, gasDrop: 0n }, 1000n, ROUTER).value).toBe(1000n);
    expect(dstTokenOf(erc20)).toBe(USDC);
  });

  it('encodes fill(order, amount) and refund(order) for the router, order field for field', () => {
    const fill = decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: fillTx(erc20, 998_000_001n, ROUTER).data });
    expect(fill).toEqual({ functionName: 'fill', args: [erc20, 998_000_001n] });
    const refund = refundTx(erc20, ROUTER);
    expect(refund.value).toBe(0n);
    expect(decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: refund.data })).toEqual({ functionName: 'refund', args: [erc20] });
  });

  it('encodes cancel(order) and claim(orders) without value, every order of the batch in its place', () => {
    const cancel = cancelTx(native, ROUTER);
    expect(cancel).toMatchObject({ to: ROUTER, value: 0n });
    expect(decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: cancel.data })).toEqual({ functionName: 'cancel', args: [native] });
    const claim = claimTx([erc20, native], ROUTER);
    expect(claim).toMatchObject({ to: ROUTER, value: 0n });
    expect(decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: claim.data })).toEqual({ functionName: 'claim', args: [[erc20, native]] });
  });

  it('retains an order until issuedAt + retention, to the second', () => {
    expect(retainedUntil(sampleOrder({ issuedAt: 1_700_000_000n }), 604_800)).toBe(1_700_604_800n);
    expect(retainedUntil(sampleOrder({ issuedAt: (1n << 64n) - 1n }), 1n)).toBe(1n << 64n);
  });
});

describe('depositTx, refundTx and cancelTx calldata (order words written by order-abi.ts)', () => {
  const orders = [
    sampleOrder(),
    sampleOrder({
      srcToken: toBytes32('evm', USDC),
      amountIn: (1n << 256n) - 1n,
      gasDrop: 0n,
      gasless: true,
      sponsorFees: true,
      slippageBps: 0xffff,
      issuedAt: (1n << 64n) - 1n,
    }),
    sampleOrder({ amountIn: 0n, amountOut: 0n, minAmountOut: 0n, version: 0, tradeType: 4 }),
  ];

  it.each(orders.map((o, i) => [i, o] as const))(
    'order %i: is what viem encodes for deposit(order), refund(order) and cancel(order)',
    (_i, order) => {
      expect(depositTx(order, ROUTER).data).toBe(
        encodeFunctionData({ abi: XCHAIN_ROUTER_ABI, functionName: 'deposit', args: [order] }).toLowerCase(),
      );
      expect(depositTx(order, ROUTER, encodeOrder(order))).toEqual(depositTx(order, ROUTER));
      expect(refundTx(order, ROUTER).data).toBe(
        encodeFunctionData({ abi: XCHAIN_ROUTER_ABI, functionName: 'refund', args: [order] }).toLowerCase(),
      );
      expect(cancelTx(order, ROUTER).data).toBe(
        encodeFunctionData({ abi: XCHAIN_ROUTER_ABI, functionName: 'cancel', args: [order] }).toLowerCase(),
      );
    },
  );
});
