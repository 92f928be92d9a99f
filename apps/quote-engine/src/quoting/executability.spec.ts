import { ExecutionRevertedError, type PublicClient } from 'viem';
import type { ChainInfo, TokenInfo } from '../registry/registry-cache';
import { FakeClock } from '@xchain/service-kit';
import { ChainChecks, type ExecutabilityQuery } from './executability';

const OWNER = '0x5555555555555555555555555555555555555555';
const chain = (name: string): ChainInfo => ({
  name,
  chainId: 1n,
  vm: 'evm',
  nativeSymbol: 'ETH',
  nativeDecimals: 18,
  enabled: true,
  gasless: true,
  maxGasDrop: 10n ** 18n,
  depositTarget: '0x7CCfEacBa472f31962CB515Fe4cE4477D15C4a04',
});
const usdc: TokenInfo = {
  chain: 'ethereum',
  address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  symbol: 'USDC',
  decimals: 6,
  tier: 'stable',
  permit: false,
  isNative: false,
};
const query = (over: Partial<ExecutabilityQuery> = {}): ExecutabilityQuery => ({
  srcChain: chain('ethereum'),
  dstChain: chain('arbitrum'),
  src: usdc,
  owner: OWNER,
  recipient: OWNER,
  gasless: false,
  amountIn: 1000n,
  gasDrop: 0n,
  permitOffered: Promise.resolve(false),
  ...over,
});

/** A client answering a funded, approved wallet; `hang` makes every read wait forever. */
function fakeClient(opts: { hang?: boolean; code?: string; callReverts?: boolean } = {}) {
  const answer = <T>(v: T) => jest.fn(() => (opts.hang ? new Promise<T>(() => undefined) : Promise.resolve(v)));
  return {
    getBalance: answer(10n ** 18n),
    readContract: answer(10n ** 9n),
    getGasPrice: answer(1n),
    getCode: answer(opts.code),
    call: jest.fn(() =>
      opts.callReverts ? Promise.reject(new ExecutionRevertedError({ message: 'execution reverted' })) : Promise.resolve({}),
    ),
  };
}

function checks(clients: Record<string, ReturnType<typeof fakeClient>>, clock: FakeClock) {
  const log = { warn: jest.fn(), info: jest.fn() };
  const c = new ChainChecks(
    (name) => clients[name] as unknown as PublicClient | undefined,
    undefined,
    { timeoutMs: 20, cacheMs: 3000, depositGas: 100_000n },
    log,
    clock,
  );
  return { c, log };
}

describe('ChainChecks', () => {
  it('finds no issue for a funded, approved wallet, and reuses the answer within the cache time', async () => {
    const eth = fakeClient();
    const clock = new FakeClock(0);
    const { c } = checks({ ethereum: eth }, clock);
    expect(await c.issues(query())).toEqual([]);
    expect(await c.issues(query())).toEqual([]);
    expect(eth.readContract).toHaveBeenCalledTimes(2); // balance and allowance, once
    clock.set(3000);
    await c.issues(query());
    expect(eth.readContract).toHaveBeenCalledTimes(4);
  });

  it('answers CHAIN_UNAVAILABLE at the deadline of a chain that hangs, warns once, and leaves the chain alone for the cache time', async () => {
    const eth = fakeClient({ hang: true });
    const clock = new FakeClock(0);
    const { c, log } = checks({ ethereum: eth }, clock);
    const [issue] = await c.issues(query());
    expect(issue).toMatchObject({ code: 'CHAIN_UNAVAILABLE', chain: 'ethereum' });
    // Another wallet meanwhile: not asked, same answer, no second warning.
    const calls = eth.getBalance.mock.calls.length;
    expect(await c.issues(query({ owner: '0x6666666666666666666666666666666666666666' }))).toEqual([issue]);
    expect(eth.getBalance.mock.calls.length).toBe(calls);
    expect(log.warn).toHaveBeenCalledTimes(1);
  });

  it('says the checks could not be made on a chain without an RPC', async () => {
    const { c } = checks({}, new FakeClock(0));
    const issues = await c.issues(query());
    expect(issues).toEqual([expect.objectContaining({ code: 'CHAIN_UNAVAILABLE', chain: 'ethereum' })]);
    expect(issues[0]!.reason).toContain('no RPC is configured');
  });

  it('checks a gas-drop recipient only with a gas drop, and flags a contract whose plain transfer reverts', async () => {
    const arb = fakeClient({ code: '0x6080', callReverts: true });
    const { c } = checks({ ethereum: fakeClient(), arbitrum: arb }, new FakeClock(0));
    expect(await c.issues(query())).toEqual([]);
    expect(arb.getCode).not.toHaveBeenCalled();
    expect(await c.issues(query({ gasDrop: 5n }))).toEqual([
      expect.objectContaining({ code: 'GAS_DROP_RECIPIENT_CANNOT_RECEIVE', needed: '5' }),
    ]);
    const eoa = checks({ ethereum: fakeClient(), arbitrum: fakeClient({ callReverts: true }) }, new FakeClock(0)).c;
    expect(await eoa.issues(query({ gasDrop: 5n }))).toEqual([]);
  });
});
