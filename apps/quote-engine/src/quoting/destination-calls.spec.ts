import { RpcError } from '@xchain/contracts';
import { sampleOrder } from '@xchain/order-codec';
import type { PublicClient } from 'viem';
import type { ChainInfo } from '../registry/registry-cache';
import { DestinationCalls } from './destination-calls';

const ROUTER = '0x7CCfEacBa472f31962CB515Fe4cE4477D15C4a04';
const TARGET = '0x3333333333333333333333333333333333333333';
const USER = '0x1111111111111111111111111111111111111111';
const base = { name: 'base', vm: 'evm', depositTarget: '0x2749Cd0bB950d46CF4a5e23773F46146BE100aFd' } as ChainInfo;
const arbitrum = { name: 'arbitrum', vm: 'evm', depositTarget: ROUTER } as ChainInfo;
const solana = { name: 'solana', vm: 'svm', depositTarget: 'Vault1111111111111111111111111111111111111' } as ChainInfo;

/** A destination whose target has `code` and whose gas price is 3 gwei. */
function calls(code: `0x${string}` = '0x6001') {
  const client = { getCode: async () => code, getGasPrice: async () => 3_000_000_000n } as unknown as PublicClient;
  return new DestinationCalls(() => client, { call: async () => ({}) as never }, { maxGas: 2_000_000, timeoutMs: 500 });
}
const input = (over: Record<string, unknown> = {}) => ({ target: TARGET, calldata: '0xABCDEF', gas_limit: 250_000, ...over });
const reasonOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof RpcError)) throw new Error(`expected an RpcError, got ${String(err)}`);
  return { code: err.status.code, message: err.message, reason: (err.status.details?.[0] as { reason?: string } | undefined)?.reason };
};

describe('destination calls at quote time', () => {
  it('prices gas_limit at the destination gas price, exactly, and keeps the calldata as lowercase hex', async () => {
    const prepared = await calls().prepare(input(), base, arbitrum, USER);
    expect(prepared.gasNative).toBe(250_000n * 3_000_000_000n);
    expect(prepared.call).toEqual({ target: TARGET, gasLimit: 250_000n, data: '0xabcdef' });
    // PreviewQuote prices the same gas from the target and gas_limit alone.
    expect(await calls().gasOnly({ target: TARGET, gas_limit: 250_000 }, base, arbitrum)).toBe(prepared.gasNative);
    expect(await reasonOf(calls().gasOnly({ target: TARGET, gas_limit: 250_000 }, base, solana))).toMatchObject({
      reason: 'DESTINATION_CALL_UNSUPPORTED',
    });
  });

  it('refuses a Solana destination, a same-chain quote, gas over the limit, another fallback, the router or the recipient as target, a target without code', async () => {
    const c = calls();
    expect(await reasonOf(c.prepare(input(), base, solana, USER))).toMatchObject({ code: 3, reason: 'DESTINATION_CALL_UNSUPPORTED' });
    expect(await reasonOf(c.prepare(input(), arbitrum, arbitrum, USER))).toMatchObject({ reason: 'DESTINATION_CALL_UNSUPPORTED' });
    expect(await reasonOf(c.prepare(input({ gas_limit: 2_000_001 }), base, arbitrum, USER))).toMatchObject({
      reason: 'INVALID_DESTINATION_CALL',
      message: expect.stringContaining('gas_limit'),
    });
    expect(await reasonOf(c.prepare(input({ gas_limit: 9_999 }), base, arbitrum, USER))).toMatchObject({
      reason: 'INVALID_DESTINATION_CALL',
    });
    expect(await reasonOf(c.prepare(input({ fallback_recipient: TARGET }), base, arbitrum, USER))).toMatchObject({
      reason: 'INVALID_DESTINATION_CALL',
      message: expect.stringContaining('fallback_recipient'),
    });
    expect(await c.prepare(input({ fallback_recipient: USER.toUpperCase().replace('0X', '0x') }), base, arbitrum, USER)).toBeDefined();
    expect(await reasonOf(c.prepare(input({ target: ROUTER }), base, arbitrum, USER))).toMatchObject({
      reason: 'INVALID_DESTINATION_CALL',
    });
    expect(await reasonOf(c.prepare(input({ target: USER }), base, arbitrum, USER))).toMatchObject({ reason: 'INVALID_DESTINATION_CALL' });
    expect(await reasonOf(calls('0x').prepare(input(), base, arbitrum, USER))).toMatchObject({ reason: 'DESTINATION_CALL_NO_CODE' });
  });

  it('answers UNAVAILABLE, never hangs, when the destination RPC does not answer in time', async () => {
    const silent = {
      getCode: () => new Promise(() => undefined),
      getGasPrice: () => new Promise(() => undefined),
    } as unknown as PublicClient;
    const c = new DestinationCalls(() => silent, { call: async () => ({}) as never }, { maxGas: 2_000_000, timeoutMs: 50 });
    expect(await reasonOf(c.prepare(input(), base, arbitrum, USER))).toMatchObject({ code: 14, reason: 'CHAIN_RPC_UNAVAILABLE' });
    const none = new DestinationCalls(() => undefined, { call: async () => ({}) as never }, { maxGas: 2_000_000, timeoutMs: 50 });
    expect(await reasonOf(none.prepare(input(), base, arbitrum, USER))).toMatchObject({ code: 14, reason: 'DESTINATION_CALL_UNCHECKED' });
  });

  it('answers UNAVAILABLE when the operator wallet cannot be looked up to simulate the fill: not the caller’s fault', async () => {
    const client = { call: async () => ({ data: '0x' }) } as unknown as PublicClient;
    const noWallet = new DestinationCalls(
      () => client,
      { call: async () => Promise.reject(new Error('no operator wallet for arbitrum')) },
      { maxGas: 2_000_000, timeoutMs: 50 },
    );
    const call = { target: TARGET, gasLimit: 250_000n, data: '0x' } as const;
    expect(await reasonOf(noWallet.simulate(arbitrum, sampleOrder(), call, `0x${'01'.repeat(32)}`, TARGET))).toMatchObject({
      code: 14,
      reason: 'DESTINATION_CALL_UNCHECKED',
    });
  });
});
