import { ANVIL_DEV_KEY, type Anvil, type CompiledContract, compileXchainContracts, deployContract, startAnvil } from '@xchain/chain-tools';
import { type Order, hashOrder, sampleOrder, toBytes32 } from '@xchain/order-codec';
import {
  type Abi,
  type Address,
  BaseError,
  type Hex,
  type TransactionReceipt,
  createPublicClient,
  createTestClient,
  createWalletClient,
  decodeErrorResult,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  http,
  maxUint256,
  parseAbi,
  parseEventLogs,
  zeroAddress,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts';
import { ERC20_PERMIT_ABI, XCHAIN_CALL_PROXY_ABI, XCHAIN_ROUTER_ABI } from './abi';
import { approveCalldata, fillTx } from './calls';
import { type DestinationCall, destinationCallRevertReason, destinationCallSalt, fillWithCallTx } from './destination-call';

const CHAIN_ID = 8453;
const ROUTER = getAddress('0xB662F3402a4748403b63cE240BF6b9EeB55e5727');
const OTHER_ROUTER = getAddress('0x2749Cd0bB950d46CF4a5e23773F46146BE100aFd');
const USDT = getAddress('0xfde4c96c8593536e31f229ea8f37b2ada2699bb2');
const ETH = 10n ** 18n;
const RETENTION = 604_800;
const ERRORS = [...XCHAIN_ROUTER_ABI, ...XCHAIN_CALL_PROXY_ABI] as Abi;
const MINT_ABI = parseAbi(['function mint(address to, uint256 amount)']);
const VAULT_ABI = parseAbi([
  'function deposit(address token, address beneficiary)',
  'function balanceOf(address beneficiary, address token) view returns (uint256)',
  'function setPaused(bool value)',
]);
const REVERTER_ABI = parseAbi(['function burn(uint256 rounds)']);
const GAS_LIMIT = 200_000n;

/** fillWithCall on anvil: the call the order's salt commits to, run atomically with the delivery, or the fallback. */
describe('XchainRouter fillWithCall on anvil', () => {
  let anvil: Anvil;
  let compiled: Record<string, CompiledContract>;
  let client: ReturnType<typeof createPublicClient>;
  let testClient: ReturnType<typeof createTestClient>;
  let vault: Address;
  let reverter: Address;

  beforeAll(async () => {
    compiled = compileXchainContracts();
    anvil = await startAnvil(CHAIN_ID);
    client = createPublicClient({ transport: http(anvil.rpcUrl), pollingInterval: 50 });
    testClient = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
    const deploy = (name: string, args: unknown[], at?: Address) =>
      deployContract({ rpcUrl: anvil.rpcUrl, deployerKey: ANVIL_DEV_KEY, contract: compiled[name]!, args, ...(at ? { at } : {}) });
    const refunder = privateKeyToAddress(generatePrivateKey());
    await deploy('XchainRouter', [refunder, refunder, refunder, RETENTION], ROUTER);
    await deploy('DevToken', ['Tether USD', 'USDT', 6], USDT);
    vault = getAddress(await deploy('DevVault', []));
    reverter = getAddress(await deploy('DevReverter', []));
  }, 60_000);

  afterAll(async () => {
    await anvil?.proc.stop();
  });

  const send = async (from: Hex, tx: { to: Address; data: Hex; value?: bigint; gas?: bigint }): Promise<TransactionReceipt> => {
    const wallet = createWalletClient({ account: privateKeyToAccount(from), transport: http(anvil.rpcUrl) });
    const hash = await wallet.sendTransaction({
      to: tx.to,
      data: tx.data,
      value: tx.value ?? 0n,
      chain: null,
      ...(tx.gas ? { gas: tx.gas } : {}),
    });
    return client.waitForTransactionReceipt({ hash });
  };
  const revertOf = async (from: Address, tx: { to: Address; data: Hex; value?: bigint; gas?: bigint }) => {
    try {
      await client.call({ account: from, to: tx.to, data: tx.data, value: tx.value ?? 0n, ...(tx.gas ? { gas: tx.gas } : {}) });
    } catch (e) {
      const raw = e instanceof BaseError ? e.walk((x) => typeof (x as { data?: unknown }).data === 'string') : null;
      const revert = (raw as { data?: Hex } | null)?.data;
      if (!revert) throw e;
      return decodeErrorResult({ abi: ERRORS, data: revert }).errorName;
    }
    throw new Error('the call did not revert');
  };
  const tokenBalance = (who: Address) =>
    client.readContract({ address: USDT, abi: ERC20_PERMIT_ABI, functionName: 'balanceOf', args: [who] });
  const credited = (beneficiary: Address, token: Address) =>
    client.readContract({ address: vault, abi: VAULT_ABI, functionName: 'balanceOf', args: [beneficiary, token] });
  const filler = async (usdt = 0n) => {
    const key = generatePrivateKey();
    const address = privateKeyToAddress(key);
    await testClient.setBalance({ address, value: 10n * ETH });
    if (usdt > 0n) {
      await send(ANVIL_DEV_KEY, { to: USDT, data: encodeFunctionData({ abi: MINT_ABI, functionName: 'mint', args: [address, usdt] }) });
      await send(key, { to: USDT, data: approveCalldata(ROUTER, maxUint256) });
    }
    return { key, address };
  };
  const fresh = () => privateKeyToAddress(generatePrivateKey());
  const now = () => BigInt(Math.floor(Date.now() / 1000));

  /** An order to be delivered here whose salt commits to `call`; the fallback is `recipient`. */
  const orderWithCall = (dstToken: Address, recipient: Address, call: DestinationCall, over: Partial<Order> = {}) => {
    const callSalt = generatePrivateKey();
    const order = sampleOrder({
      issuedAt: now(),
      expiresAt: now() + 1800n,
      salt: destinationCallSalt(callSalt, call),
      srcChainId: 1n,
      dstChainId: BigInt(CHAIN_ID),
      srcToken: toBytes32('evm', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
      dstToken: toBytes32('evm', dstToken),
      amountOut: 99_000_123n,
      minAmountOut: 98_500_000n,
      recipient: toBytes32('evm', recipient),
      depositTarget: toBytes32('evm', OTHER_ROUTER),
      ...over,
    });
    return { order, callSalt };
  };
  const vaultDeposit = (token: Address, beneficiary: Address): DestinationCall => ({
    target: vault,
    gasLimit: GAS_LIMIT,
    data: encodeFunctionData({ abi: VAULT_ABI, functionName: 'deposit', args: [token, beneficiary] }),
  });

  it('delivers an ERC-20 to the vault and runs its deposit: the beneficiary is credited, the fallback gets nothing', async () => {
    const f = await filler(500_000_000n);
    const [beneficiary, fallback] = [fresh(), fresh()];
    const call = vaultDeposit(USDT, beneficiary);
    const { order, callSalt } = orderWithCall(USDT, fallback, call, { gasDrop: 5_000n });
    const tx = fillWithCallTx(order, order.amountOut, call, callSalt, ROUTER);
    const sim = await client.call({ account: f.address, to: tx.to, data: tx.data, value: tx.value });
    expect(decodeFunctionResult({ abi: XCHAIN_ROUTER_ABI, functionName: 'fillWithCall', data: sim.data! })).toEqual([true, '0x']);

    const receipt = await send(f.key, tx);

    expect(receipt.status).toBe('success');
    expect(await credited(beneficiary, USDT)).toBe(order.amountOut);
    expect(await tokenBalance(vault)).toBeGreaterThanOrEqual(order.amountOut);
    expect(await tokenBalance(fallback)).toBe(0n);
    expect(await client.getBalance({ address: fallback })).toBe(order.gasDrop);
    const [filled] = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Filled' });
    expect(filled!.args).toMatchObject({ quoteHash: hashOrder(order), recipient: vault, amount: order.amountOut });
    const [ran] = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'CallExecuted' });
    expect(ran!.args).toEqual({ quoteHash: hashOrder(order), target: vault, executed: true });
  });

  it('delivers the native asset with the call as its value', async () => {
    const f = await filler();
    const [beneficiary, fallback] = [fresh(), fresh()];
    const amount = ETH + 11n;
    const call = vaultDeposit(zeroAddress, beneficiary);
    const { order, callSalt } = orderWithCall(zeroAddress, fallback, call, { amountOut: amount, minAmountOut: ETH });
    const receipt = await send(f.key, fillWithCallTx(order, amount, call, callSalt, ROUTER));
    expect(receipt.status).toBe('success');
    expect(await credited(beneficiary, zeroAddress)).toBe(amount);
    expect(await client.getBalance({ address: fallback })).toBe(0n);
    expect(await client.getBalance({ address: ROUTER })).toBe(0n);
  });

  it('sends the tokens to the fallback recipient when the call reverts, and the order is filled all the same', async () => {
    const f = await filler(500_000_000n);
    const fallback = fresh();
    const call: DestinationCall = { target: reverter, gasLimit: GAS_LIMIT, data: '0x12345678' };
    const { order, callSalt } = orderWithCall(USDT, fallback, call);
    const tx = fillWithCallTx(order, order.amountOut, call, callSalt, ROUTER);
    const sim = await client.call({ account: f.address, to: tx.to, data: tx.data, value: tx.value });
    const [executed, reason] = decodeFunctionResult({ abi: XCHAIN_ROUTER_ABI, functionName: 'fillWithCall', data: sim.data! });
    expect(executed).toBe(false);
    expect(destinationCallRevertReason(reason)).toBe('DevReverter: no');

    const receipt = await send(f.key, tx);

    expect(receipt.status).toBe('success');
    expect(await tokenBalance(fallback)).toBe(order.amountOut);
    expect(await tokenBalance(reverter)).toBe(0n);
    const [filled] = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Filled' });
    expect(filled!.args.recipient).toBe(fallback);
    const [ran] = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'CallExecuted' });
    expect(ran!.args.executed).toBe(false);
    expect(await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'filled', args: [hashOrder(order)] })).toBe(
      true,
    );
  });

  it('falls back when the vault is paused after the quote: its deposit reverts, the native amount goes to the fallback', async () => {
    const f = await filler();
    const [beneficiary, fallback] = [fresh(), fresh()];
    const call = vaultDeposit(zeroAddress, beneficiary);
    const { order, callSalt } = orderWithCall(zeroAddress, fallback, call, { amountOut: ETH, minAmountOut: ETH });
    await send(ANVIL_DEV_KEY, { to: vault, data: encodeFunctionData({ abi: VAULT_ABI, functionName: 'setPaused', args: [true] }) });
    try {
      const receipt = await send(f.key, fillWithCallTx(order, ETH, call, callSalt, ROUTER));
      expect(receipt.status).toBe('success');
      expect(await client.getBalance({ address: fallback })).toBe(ETH);
      expect(await credited(beneficiary, zeroAddress)).toBe(0n);
    } finally {
      await send(ANVIL_DEV_KEY, { to: vault, data: encodeFunctionData({ abi: VAULT_ABI, functionName: 'setPaused', args: [false] }) });
    }
  });

  it('refuses a call or salt other than the one the order commits to, and a target that is the router itself', async () => {
    const f = await filler(500_000_000n);
    const call = vaultDeposit(USDT, fresh());
    const { order, callSalt } = orderWithCall(USDT, fresh(), call);
    const other = { ...call, data: encodeFunctionData({ abi: VAULT_ABI, functionName: 'deposit', args: [USDT, fresh()] }) };
    expect(await revertOf(f.address, fillWithCallTx(order, order.amountOut, other, callSalt, ROUTER))).toBe('BadCallCommitment');
    expect(await revertOf(f.address, fillWithCallTx(order, order.amountOut, { ...call, gasLimit: 1n }, callSalt, ROUTER))).toBe(
      'BadCallCommitment',
    );
    expect(await revertOf(f.address, fillWithCallTx(order, order.amountOut, call, generatePrivateKey(), ROUTER))).toBe('BadCallCommitment');
    const self: DestinationCall = { target: ROUTER, gasLimit: GAS_LIMIT, data: '0x' };
    const toSelf = orderWithCall(USDT, fresh(), self);
    expect(await revertOf(f.address, fillWithCallTx(toSelf.order, toSelf.order.amountOut, self, toSelf.callSalt, ROUTER))).toBe(
      'BadCallTarget',
    );
    const direct = encodeFunctionData({ abi: XCHAIN_ROUTER_ABI, functionName: 'deliverAndCall', args: [f.address, USDT, 1n, call] });
    expect(await revertOf(f.address, { to: ROUTER, data: direct })).toBe('NotSelf');
  });

  it('fills once per hash: a second fillWithCall, or a plain fill, reverts AlreadyFilled; a plain fill alone pays the fallback', async () => {
    const f = await filler(500_000_000n);
    const call = vaultDeposit(USDT, fresh());
    const { order, callSalt } = orderWithCall(USDT, fresh(), call);
    expect((await send(f.key, fillWithCallTx(order, order.amountOut, call, callSalt, ROUTER))).status).toBe('success');
    expect(await revertOf(f.address, fillWithCallTx(order, order.amountOut, call, callSalt, ROUTER))).toBe('AlreadyFilled');
    expect(await revertOf(f.address, fillTx(order, order.amountOut, ROUTER))).toBe('AlreadyFilled');

    const fallback = fresh();
    const plain = orderWithCall(USDT, fallback, vaultDeposit(USDT, fresh()));
    expect((await send(f.key, fillTx(plain.order, plain.order.amountOut, ROUTER))).status).toBe('success');
    expect(await tokenBalance(fallback)).toBe(plain.order.amountOut);
  });

  it('reverts InsufficientGas, rather than falling back, when sent with too little gas for the call’s limit', async () => {
    const f = await filler(500_000_000n);
    const fallback = fresh();
    const heavy: DestinationCall = {
      target: reverter,
      gasLimit: 1_000_000n,
      data: encodeFunctionData({ abi: REVERTER_ABI, functionName: 'burn', args: [30n] }),
    };
    const { order, callSalt } = orderWithCall(USDT, fallback, heavy);
    const tx = fillWithCallTx(order, order.amountOut, heavy, callSalt, ROUTER);
    // Enough for everything but the call's whole limit: the fill must not land as a fallback.
    expect(await revertOf(f.address, { ...tx, gas: 600_000n })).toBe('InsufficientGas');
    const starved = await send(f.key, { ...tx, gas: 600_000n });
    expect(starved.status).toBe('reverted');
    expect(await tokenBalance(fallback)).toBe(0n);
    // With the gas estimated, it runs.
    const ok = await send(f.key, { ...tx, gas: await client.estimateGas({ account: f.address, ...tx }) });
    expect(ok.status).toBe('success');
    const [ran] = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: ok.logs, eventName: 'CallExecuted' });
    expect(ran!.args.executed).toBe(true);
  });
});
