import { XCHAIN_ROUTER_ABI } from '@xchain/evm-gasless';
import { hashOrder, orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { concat, decodeFunctionData, keccak256 } from 'viem';
import type { ChainInfo } from '../registry/registry-cache';
import { claimBatchId, claimCall, dstTokenKey, operatorCall, tokenKey } from './operator-calls';

const ROUTER = '0x7CCfEacBa472f31962CB515Fe4cE4477D15C4a04';
const OTHER_ROUTER = '0x1111111111111111111111111111111111111111';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const chain = (vm: 'evm' | 'svm', depositTarget: string) => ({ name: vm === 'evm' ? 'base' : 'solana', vm, depositTarget }) as ChainInfo;
const registry = {
  token: (_c: ChainInfo, address: string) =>
    address === 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' ? ({ decimals: 6 } as never) : undefined,
};

describe('operator calls: the transaction of each settlement step', () => {
  const toSolana = sampleOrder({ gasDrop: 7n });
  const wire = orderToWire(toSolana, []);

  it('fills on Solana with the order itself, amount_out and the mint’s decimals', () => {
    expect(operatorCall('fill', wire, chain('svm', 'Vault1111111111111111111111111111111111111'), registry)).toEqual({
      vm: 'svm',
      order: wire,
      amount: '999000000',
      mint_decimals: 6,
    });
    // Solana has no router to record a cancel.
    expect(operatorCall('cancel', wire, chain('svm', 'x'), registry)).toBeUndefined();
  });

  it('refunds on an EVM source through the router the order names, not the registry’s current one', () => {
    const call = operatorCall('refund', wire, chain('evm', OTHER_ROUTER), registry);
    expect(call).toMatchObject({ vm: 'evm', to: ROUTER, value: '0' });
    const decoded = decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: (call as { data: `0x${string}` }).data });
    expect(decoded.functionName).toBe('refund');
    expect(hashOrder(decoded.args![0] as never)).toBe(hashOrder(toSolana));
  });

  it('fills and cancels on an EVM destination at its router: amount_out, with the gas drop (and a native amount) as value', () => {
    const toBase = sampleOrder({
      dstChainId: 8453n,
      dstToken: toBytes32('evm', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
      recipient: toBytes32('evm', OTHER_ROUTER),
      gasDrop: 5n,
    });
    const erc20 = operatorCall('fill', orderToWire(toBase, []), chain('evm', ROUTER), registry) as {
      to: string;
      data: `0x${string}`;
      value: string;
    };
    expect(erc20).toMatchObject({ to: ROUTER, value: '5' });
    expect(decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: erc20.data }).args![1]).toBe(999_000_000n);
    const native = sampleOrder({ ...toBase, dstToken: toBytes32('evm', '0x0000000000000000000000000000000000000000') });
    expect(operatorCall('fill', orderToWire(native, []), chain('evm', ROUTER), registry)).toMatchObject({
      value: (999_000_000n + 5n).toString(),
    });
    const cancel = operatorCall('cancel', orderToWire(toBase, []), chain('evm', ROUTER), registry) as { data: `0x${string}` };
    expect(decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: cancel.data }).functionName).toBe('cancel');
    expect(operatorCall('fill', orderToWire(toBase, []), chain('evm', 'not-an-address'), registry)).toBeUndefined();
  });

  it('fills an order quoted with a destination call through fillWithCall, with the call and salt it commits to; its refund is unchanged', () => {
    const call = {
      target: '0x3333333333333333333333333333333333333333',
      calldata: '0xabcdef',
      gas_limit: '250000',
      call_salt: `0x${'07'.repeat(32)}`,
    };
    const toBase = sampleOrder({
      dstChainId: 8453n,
      dstToken: toBytes32('evm', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
      gasDrop: 5n,
    });
    const fill = operatorCall('fill', orderToWire(toBase, []), chain('evm', ROUTER), registry, call) as {
      to: string;
      data: `0x${string}`;
      value: string;
    };
    expect(fill).toMatchObject({ to: ROUTER, value: '5' });
    const decoded = decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: fill.data });
    expect(decoded.functionName).toBe('fillWithCall');
    expect(decoded.args!.slice(1)).toEqual([
      999_000_000n,
      { target: '0x3333333333333333333333333333333333333333', gasLimit: 250_000n, data: '0xabcdef' },
      call.call_salt,
    ]);
    const cancel = operatorCall('cancel', orderToWire(toBase, []), chain('evm', ROUTER), registry, call) as { data: `0x${string}` };
    expect(decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: cancel.data }).functionName).toBe('cancel');
  });

  it('keys tokens exactly: EVM addresses in lower case, Solana mints as they are, SOL by the System id', () => {
    expect(tokenKey('evm', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48')).toBe('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
    expect(dstTokenKey('svm', toSolana, wire)).toBe('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
    const sol = sampleOrder({ dstToken: toBytes32('svm', '11111111111111111111111111111111') });
    expect(dstTokenKey('svm', sol, orderToWire(sol, []))).toBe('11111111111111111111111111111111');
  });

  it('claims an EVM batch in one router call, named by its sorted hashes (the ids of batches formed before stay the same)', () => {
    const call = claimCall([wire, wire], chain('evm', OTHER_ROUTER), registry) as { data: `0x${string}`; to: string };
    expect(call.to).toBe(ROUTER);
    expect((decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: call.data }).args![0] as unknown[]).length).toBe(2);
    const [a, b] = [`0x${'01'.repeat(32)}`, `0x${'02'.repeat(32)}`] as const;
    expect(claimBatchId([a, b])).toBe(keccak256(concat([a, b])));
    expect(claimBatchId([b, a])).toBe(claimBatchId([a, b]));
  });

  it('claims a Solana batch with its orders and the source mint’s decimals (none for SOL): the relayer builds the transfer to its treasury', () => {
    const fromSolana = orderToWire(sampleOrder({ srcChainId: 792703809n, srcToken: toBytes32('svm', USDC) }), []);
    expect(claimCall([fromSolana], chain('svm', 'Vault1111111111111111111111111111111111111'), registry)).toEqual({
      vm: 'svm',
      claim: { orders: [fromSolana], mint_decimals: 6 },
    });
    const sol = orderToWire(sampleOrder({ srcChainId: 792703809n, srcToken: `0x${'00'.repeat(32)}` }), []);
    expect(claimCall([sol], chain('svm', 'x'), registry)).toEqual({ vm: 'svm', claim: { orders: [sol] } });
  });
});
