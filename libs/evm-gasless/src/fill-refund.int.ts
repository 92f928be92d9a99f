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
  encodeFunctionData,
  getAddress,
  http,
  maxUint256,
  parseAbi,
  parseEventLogs,
  zeroAddress,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts';
import { ERC20_PERMIT_ABI, XCHAIN_ROUTER_ABI } from './abi';
import { approveCalldata, depositAmount, depositTx, fillTx, refundTx } from './calls';

const CHAIN_ID = 8453;
const OTHER_CHAIN_ID = 42161n;
// The router at base's registry address, as the local devnet places it; another chain's router
// stands as the deposit target of orders that come here to be filled.
const ROUTER = getAddress('0xB662F3402a4748403b63cE240BF6b9EeB55e5727');
const OTHER_ROUTER = getAddress('0x2749Cd0bB950d46CF4a5e23773F46146BE100aFd');
const USDT = getAddress('0xfde4c96c8593536e31f229ea8f37b2ada2699bb2');
const REFUNDER_KEY = generatePrivateKey();
const REFUNDER = privateKeyToAddress(REFUNDER_KEY);
const ETH = 10n ** 18n;

const ERRORS = [
  ...XCHAIN_ROUTER_ABI,
  ...parseAbi([
    'error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
    'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  ]),
] as Abi;
const MINT_ABI = parseAbi(['function mint(address to, uint256 amount)']);

/** keys of an ABI item that matter to a caller (solc adds internalType, which viem ignores). */
function callerView(item: Record<string, unknown>): unknown {
  const params = (list: unknown): unknown[] | undefined =>
    (list as Record<string, unknown>[] | undefined)?.map((p) => ({ name: p['name'], type: p['type'], indexed: p['indexed'] ?? false, components: params(p['components']) }));
  return { type: item['type'], name: item['name'], stateMutability: item['stateMutability'], inputs: params(item['inputs']), outputs: params(item['outputs']) };
}

/** Fills, refunds and the order event on one anvil: the router as the source and the destination chain. */
/** The routers' fill window here; orders to fill expire far in the future, orders to refund long ago (sampleOrder's default). */
const FILL_WINDOW = 3600;
const FAR_FUTURE = 4_000_000_000n;

describe('XchainRouter fill and refund on anvil', () => {
  let anvil: Anvil;
  let compiled: Record<string, CompiledContract>;
  let client: ReturnType<typeof createPublicClient>;
  let testClient: ReturnType<typeof createTestClient>;

  beforeAll(async () => {
    compiled = compileXchainContracts();
    anvil = await startAnvil(CHAIN_ID);
    client = createPublicClient({ transport: http(anvil.rpcUrl), pollingInterval: 50 });
    testClient = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
    const place = (name: string, at: Address, args: unknown[]) => deployContract({ rpcUrl: anvil.rpcUrl, deployerKey: ANVIL_DEV_KEY, contract: compiled[name]!, args, at });
    await Promise.all([place('XchainRouter', ROUTER, [REFUNDER, FILL_WINDOW]), place('DevToken', USDT, ['Tether USD', 'USDT', 6])]);
    await testClient.setBalance({ address: REFUNDER, value: ETH });
  }, 60_000);

  afterAll(async () => {
    await anvil?.proc.stop();
  });

  const send = async (from: Hex, tx: { to: Address; data: Hex; value?: bigint }): Promise<TransactionReceipt> => {
    const wallet = createWalletClient({ account: privateKeyToAccount(from), transport: http(anvil.rpcUrl) });
    const receipt = await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: tx.to, data: tx.data, value: tx.value ?? 0n, chain: null }) });
    expect(receipt.status).toBe('success');
    return receipt;
  };
  /** The custom error a call ends in, decoded; fails the test when the call succeeds. */
  const revertOf = async (from: Address, tx: { to: Address; data: Hex; value?: bigint }): Promise<{ errorName: string; args: readonly unknown[] | undefined }> => {
    try {
      await client.call({ account: from, to: tx.to, data: tx.data, value: tx.value ?? 0n });
    } catch (e) {
      const raw = e instanceof BaseError ? e.walk((x) => typeof (x as { data?: unknown }).data === 'string') : null;
      const revert = (raw as { data?: Hex } | null)?.data;
      if (!revert) throw e;
      const { errorName, args } = decodeErrorResult({ abi: ERRORS, data: revert });
      return { errorName, args };
    }
    throw new Error('the call did not revert');
  };
  const tokenBalance = (who: Address) => client.readContract({ address: USDT, abi: ERC20_PERMIT_ABI, functionName: 'balanceOf', args: [who] });
  const nativeBalance = (who: Address) => client.getBalance({ address: who });
  const gasPaid = (r: TransactionReceipt) => r.gasUsed * r.effectiveGasPrice;
  const read = (functionName: 'deposited' | 'filled' | 'refunded', order: Order) => client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName, args: [hashOrder(order)] });

  /** A wallet with 10 ETH of gas and, when asked, USDT and an approval of the router. */
  const wallet = async (usdt = 0n) => {
    const key = generatePrivateKey();
    const address = privateKeyToAddress(key);
    await testClient.setBalance({ address, value: 10n * ETH });
    if (usdt > 0n) {
      await send(ANVIL_DEV_KEY, { to: USDT, data: encodeFunctionData({ abi: MINT_ABI, functionName: 'mint', args: [address, usdt] }) });
      await send(key, { to: USDT, data: approveCalldata(ROUTER, maxUint256) });
    }
    return { key, address };
  };
  const freshAddress = () => privateKeyToAddress(generatePrivateKey());

  /** An order from another chain, to be delivered here (its fill window open for long). */
  const inboundOrder = (dstToken: Address, recipient: Address, over: Partial<Order> = {}): Order =>
    sampleOrder({
      expiresAt: FAR_FUTURE,
      salt: generatePrivateKey(),
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
  /** An order deposited here, for another chain (or, with dstChainId = here, a same-chain order). */
  const outboundOrder = (srcToken: Address, refundTo: Address, over: Partial<Order> = {}): Order =>
    sampleOrder({
      salt: generatePrivateKey(),
      srcChainId: BigInt(CHAIN_ID),
      dstChainId: OTHER_CHAIN_ID,
      srcToken: toBytes32('evm', srcToken),
      dstToken: toBytes32('evm', USDT),
      refundAddress: toBytes32('evm', refundTo),
      depositTarget: toBytes32('evm', ROUTER),
      ...over,
    });
  /** A gasless-shaped order, so the deposit (and the refund) is amountIn − sponsorGas, not amountIn. */
  const userPaysGas = { gasless: true, sponsorFees: false, amountIn: 250_000_007n, sponsorGas: 1_234_567n };

  it('serves the ABI the lib declares, item for item, and the refunder it was deployed with', async () => {
    const ours = (XCHAIN_ROUTER_ABI as readonly Record<string, unknown>[]).map(callerView);
    const built = (compiled['XchainRouter']!.abi as readonly Record<string, unknown>[]).filter((i) => i['type'] !== 'constructor').map(callerView);
    const key = (i: unknown) => JSON.stringify(i);
    expect(ours.map(key).sort()).toEqual(built.map(key).sort());
    expect(await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'refunder' })).toBe(REFUNDER);
  });

  describe('fill', () => {
    it('delivers an ERC-20 and the gas drop: the recipient gets both to the unit, the filler pays exactly them', async () => {
      const filler = await wallet(500_000_000n);
      const recipient = freshAddress();
      const order = inboundOrder(USDT, recipient, { gasDrop: 3_000_000_000_000_001n });
      const tx = fillTx(order, order.amountOut, ROUTER);
      expect(tx.value).toBe(order.gasDrop);
      const before = { fillerToken: await tokenBalance(filler.address), fillerNative: await nativeBalance(filler.address) };

      const receipt = await send(filler.key, tx);

      expect(await tokenBalance(recipient)).toBe(order.amountOut);
      expect(await nativeBalance(recipient)).toBe(order.gasDrop);
      expect(await tokenBalance(filler.address)).toBe(before.fillerToken - order.amountOut);
      expect(await nativeBalance(filler.address)).toBe(before.fillerNative - order.gasDrop - gasPaid(receipt));
      expect(await tokenBalance(ROUTER)).toBe(0n);
      expect(await nativeBalance(ROUTER)).toBe(0n);
      const [filled] = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Filled' });
      expect(filled!.address).toBe(ROUTER.toLowerCase());
      expect(filled!.args).toEqual({ quoteHash: hashOrder(order), filler: filler.address, recipient, token: USDT, amount: order.amountOut, gasDrop: order.gasDrop });
      expect(await read('filled', order)).toBe(true);
    });

    it('delivers the native asset with a gas drop in one value: amount + gasDrop, no more, no less', async () => {
      const filler = await wallet();
      const recipient = freshAddress();
      const order = inboundOrder(zeroAddress, recipient, { amountOut: 2n * ETH + 7n, minAmountOut: 2n * ETH, gasDrop: 10n ** 15n + 3n });
      const tx = fillTx(order, order.amountOut, ROUTER);
      expect(tx.value).toBe(order.amountOut + order.gasDrop);
      expect((await revertOf(filler.address, { ...tx, value: tx.value - 1n })).errorName).toBe('WrongValue');
      expect((await revertOf(filler.address, { ...tx, value: tx.value + 1n })).errorName).toBe('WrongValue');
      const fillerBefore = await nativeBalance(filler.address);

      const receipt = await send(filler.key, tx);

      expect(await nativeBalance(recipient)).toBe(order.amountOut + order.gasDrop);
      expect(await nativeBalance(filler.address)).toBe(fillerBefore - order.amountOut - order.gasDrop - gasPaid(receipt));
      expect(await nativeBalance(ROUTER)).toBe(0n);
      const [filled] = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Filled' });
      expect(filled!.args).toEqual({ quoteHash: hashOrder(order), filler: filler.address, recipient, token: zeroAddress, amount: order.amountOut, gasDrop: order.gasDrop });
    });

    it('fills an order once: a second fill, by the same filler or another, reverts AlreadyFilled', async () => {
      const [first, second] = [await wallet(300_000_000n), await wallet(300_000_000n)];
      const recipient = freshAddress();
      const order = inboundOrder(USDT, recipient);
      await send(first.key, fillTx(order, order.amountOut, ROUTER));

      const again = fillTx(order, order.amountOut, ROUTER);
      expect(await revertOf(first.address, again)).toEqual({ errorName: 'AlreadyFilled', args: [hashOrder(order)] });
      expect(await revertOf(second.address, fillTx(order, order.amountOut + 1n, ROUTER))).toEqual({ errorName: 'AlreadyFilled', args: [hashOrder(order)] });
      expect(await tokenBalance(recipient)).toBe(order.amountOut);
    });

    it('refuses a fill below minAmountOut, and takes one exactly at it', async () => {
      const filler = await wallet(300_000_000n);
      const recipient = freshAddress();
      const order = inboundOrder(USDT, recipient);
      const below = fillTx(order, order.minAmountOut - 1n, ROUTER);
      expect(await revertOf(filler.address, below)).toEqual({ errorName: 'BelowMinimum', args: [order.minAmountOut - 1n, order.minAmountOut] });
      expect(await read('filled', order)).toBe(false);

      await send(filler.key, fillTx(order, order.minAmountOut, ROUTER));
      expect(await tokenBalance(recipient)).toBe(order.minAmountOut);
    });

    it('refuses an order for another chain, a recipient or token with high bytes set, a wrong value and a missing approval', async () => {
      const filler = await wallet(300_000_000n);
      const recipient = freshAddress();
      const forArbitrum = inboundOrder(USDT, recipient, { dstChainId: OTHER_CHAIN_ID });
      expect((await revertOf(filler.address, fillTx(forArbitrum, forArbitrum.amountOut, ROUTER))).errorName).toBe('WrongDestinationChain');

      // A Solana key (or any 32 bytes with the high 12 set) would be cut to some other address.
      const highBit = inboundOrder(USDT, recipient, { recipient: `0x01${toBytes32('evm', recipient).slice(4)}` as Hex });
      expect((await revertOf(filler.address, fillTx(highBit, highBit.amountOut, ROUTER))).errorName).toBe('BadRecipient');
      const badToken = inboundOrder(USDT, recipient, { dstToken: `0x8000${toBytes32('evm', USDT).slice(6)}` as Hex });
      expect((await revertOf(filler.address, fillTx(badToken, badToken.amountOut, ROUTER))).errorName).toBe('BadToken');

      const order = inboundOrder(USDT, recipient, { gasDrop: 5n });
      expect((await revertOf(filler.address, { ...fillTx(order, order.amountOut, ROUTER), value: 0n })).errorName).toBe('WrongValue');
      const stranger = await wallet();
      expect((await revertOf(stranger.address, fillTx(order, order.amountOut, ROUTER))).errorName).toBe('ERC20InsufficientAllowance');
    });

    it('reverts TransferFailed when the recipient refuses the native asset, and leaves the order unfilled', async () => {
      const filler = await wallet();
      // The token contract has no receive function: it cannot take ETH.
      const order = inboundOrder(zeroAddress, USDT, { amountOut: 10n ** 15n, minAmountOut: 10n ** 15n });
      expect((await revertOf(filler.address, fillTx(order, order.amountOut, ROUTER))).errorName).toBe('TransferFailed');
      expect(await read('filled', order)).toBe(false);
    });
  });

  describe('refund', () => {
    const deposit = async (order: Order, user: { key: Hex }) => send(user.key, depositTx(order, ROUTER));

    it('returns an ERC-20 deposit (amountIn − sponsorGas) to refund_address once, with the event', async () => {
      const user = await wallet(300_000_000n);
      const refundTo = freshAddress();
      const order = outboundOrder(USDT, refundTo, userPaysGas);
      await deposit(order, user);
      const routerBefore = await tokenBalance(ROUTER);

      const receipt = await send(REFUNDER_KEY, refundTx(order, ROUTER));

      expect(await tokenBalance(refundTo)).toBe(depositAmount(order));
      expect(depositAmount(order)).toBe(order.amountIn - order.sponsorGas);
      expect(await tokenBalance(ROUTER)).toBe(routerBefore - depositAmount(order));
      const [refunded] = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Refunded' });
      expect(refunded!.args).toEqual({ quoteHash: hashOrder(order), to: refundTo, token: USDT, amount: depositAmount(order) });
      expect([await read('deposited', order), await read('refunded', order), await read('filled', order)]).toEqual([true, true, false]);

      expect(await revertOf(REFUNDER, refundTx(order, ROUTER))).toEqual({ errorName: 'AlreadyRefunded', args: [hashOrder(order)] });
      // Refunded is not "never deposited": the same order cannot be deposited again.
      expect(await revertOf(user.address, depositTx(order, ROUTER))).toEqual({ errorName: 'AlreadyDeposited', args: [hashOrder(order)] });
      expect(await tokenBalance(refundTo)).toBe(depositAmount(order));
    });

    it('returns a native deposit to refund_address: it gains and the router loses exactly depositAmount', async () => {
      const user = await wallet();
      const refundTo = freshAddress();
      const order = outboundOrder(zeroAddress, refundTo, { amountIn: ETH + 11n });
      await deposit(order, user);
      const routerBefore = await nativeBalance(ROUTER);

      const receipt = await send(REFUNDER_KEY, refundTx(order, ROUTER));

      expect(await nativeBalance(refundTo)).toBe(depositAmount(order));
      expect(await nativeBalance(ROUTER)).toBe(routerBefore - depositAmount(order));
      expect(parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Refunded' })[0]!.args).toEqual({
        quoteHash: hashOrder(order),
        to: refundTo,
        token: zeroAddress,
        amount: ETH + 11n,
      });
      expect(await revertOf(REFUNDER, refundTx(order, ROUTER))).toEqual({ errorName: 'AlreadyRefunded', args: [hashOrder(order)] });
    });

    it('refuses a stranger, an order never deposited, another chain or router, and a refund address with high bytes', async () => {
      const user = await wallet(2_000_000_000n);
      const order = outboundOrder(USDT, freshAddress());
      expect(await revertOf(REFUNDER, refundTx(order, ROUTER))).toEqual({ errorName: 'NotDeposited', args: [hashOrder(order)] });
      await deposit(order, user);
      expect((await revertOf(user.address, refundTx(order, ROUTER))).errorName).toBe('NotRefunder');
      expect((await revertOf(freshAddress(), refundTx(order, ROUTER))).errorName).toBe('NotRefunder');

      expect((await revertOf(REFUNDER, refundTx({ ...order, srcChainId: 1n }, ROUTER))).errorName).toBe('WrongSourceChain');
      expect((await revertOf(REFUNDER, refundTx({ ...order, depositTarget: toBytes32('evm', OTHER_ROUTER) }, ROUTER))).errorName).toBe('WrongDepositTarget');

      const highBit = outboundOrder(USDT, freshAddress(), { refundAddress: `0xff${'00'.repeat(11)}${freshAddress().slice(2)}` as Hex });
      await deposit(highBit, user);
      expect((await revertOf(REFUNDER, refundTx(highBit, ROUTER))).errorName).toBe('BadRecipient');
      expect(await read('refunded', highBit)).toBe(false);
    });

    it('reverts TransferFailed when refund_address refuses the native asset, and the deposit stays refundable', async () => {
      const user = await wallet();
      const order = outboundOrder(zeroAddress, USDT, { amountIn: 10n ** 15n });
      await deposit(order, user);
      expect((await revertOf(REFUNDER, refundTx(order, ROUTER))).errorName).toBe('TransferFailed');
      expect(await read('refunded', order)).toBe(false);
    });
  });

  describe('the fill window: no fill can land after a cross-chain refund', () => {
    const chainNow = async () => (await client.getBlock({ blockTag: 'latest' })).timestamp;

    it('takes a fill until expiresAt + fillWindow, and refuses one after (FillWindowClosed)', async () => {
      const filler = await wallet(300_000_000n);
      expect(await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'fillWindow' })).toBe(BigInt(FILL_WINDOW));
      const now = await chainNow();
      const late = inboundOrder(USDT, freshAddress(), { expiresAt: now - BigInt(FILL_WINDOW) - 10n });
      expect(await revertOf(filler.address, fillTx(late, late.amountOut, ROUTER))).toEqual({ errorName: 'FillWindowClosed', args: [late.expiresAt + BigInt(FILL_WINDOW)] });
      const justInTime = inboundOrder(USDT, freshAddress(), { expiresAt: now - BigInt(FILL_WINDOW) + 120n });
      await send(filler.key, fillTx(justInTime, justInTime.amountOut, ROUTER));
      expect(await read('filled', justInTime)).toBe(true);
    });

    it('refunds a cross-chain order only after the window and the margin have passed (RefundTooEarly before)', async () => {
      const user = await wallet(2_000_000_000n);
      const refundTo = freshAddress();
      const order = outboundOrder(USDT, refundTo, { expiresAt: await chainNow() });
      await send(user.key, depositTx(order, ROUTER));
      const at = order.expiresAt + BigInt(FILL_WINDOW) + 600n;
      expect(await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'refundableAt', args: [order] })).toBe(at);
      expect(await revertOf(REFUNDER, refundTx(order, ROUTER))).toEqual({ errorName: 'RefundTooEarly', args: [at] });
      // The chain's clock moves past it: the refund goes through.
      await testClient.increaseTime({ seconds: FILL_WINDOW + 600 + 5 });
      await testClient.mine({ blocks: 1 });
      await send(REFUNDER_KEY, refundTx(order, ROUTER));
      expect(await tokenBalance(refundTo)).toBe(depositAmount(order));
    });
  });

  describe('a same-chain order (source and destination both here)', () => {
    const sameChain = (refundTo: Address, recipient: Address) =>
      outboundOrder(USDT, refundTo, { dstChainId: BigInt(CHAIN_ID), recipient: toBytes32('evm', recipient), amountIn: 50_000_000n, amountOut: 49_900_000n, minAmountOut: 49_800_000n, expiresAt: FAR_FUTURE });

    it('is filled only after its deposit, and then cannot be refunded (AlreadyFilled)', async () => {
      const [user, filler] = [await wallet(100_000_000n), await wallet(100_000_000n)];
      const [refundTo, recipient] = [freshAddress(), freshAddress()];
      const order = sameChain(refundTo, recipient);
      expect(await revertOf(filler.address, fillTx(order, order.amountOut, ROUTER))).toEqual({ errorName: 'NotDeposited', args: [hashOrder(order)] });
      await send(user.key, depositTx(order, ROUTER));
      await send(filler.key, fillTx(order, order.amountOut, ROUTER));
      expect(await tokenBalance(recipient)).toBe(order.amountOut);

      expect(await revertOf(REFUNDER, refundTx(order, ROUTER))).toEqual({ errorName: 'AlreadyFilled', args: [hashOrder(order)] });
      expect(await tokenBalance(refundTo)).toBe(0n);
    });

    it('once refunded, cannot be filled (AlreadyRefunded)', async () => {
      const [user, filler] = [await wallet(100_000_000n), await wallet(100_000_000n)];
      const [refundTo, recipient] = [freshAddress(), freshAddress()];
      const order = sameChain(refundTo, recipient);
      await send(user.key, depositTx(order, ROUTER));
      await send(REFUNDER_KEY, refundTx(order, ROUTER));
      expect(await tokenBalance(refundTo)).toBe(order.amountIn);

      expect(await revertOf(filler.address, fillTx(order, order.amountOut, ROUTER))).toEqual({ errorName: 'AlreadyRefunded', args: [hashOrder(order)] });
      expect(await tokenBalance(recipient)).toBe(0n);
    });
  });

  it('opens every deposit with OrderOpened, before Deposited, carrying an order that re-hashes to its quote hash', async () => {
    const user = await wallet(300_000_000n);
    const order = outboundOrder(USDT, freshAddress(), { ...userPaysGas, gasDrop: 123n, referrersHash: generatePrivateKey(), tradeType: 3, slippageBps: 77, srcSlippageBps: 5 });
    const receipt = await send(user.key, depositTx(order, ROUTER));

    const events = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs });
    expect(events.map((e) => e.eventName)).toEqual(['OrderOpened', 'Deposited']);
    const opened = events[0]!;
    if (opened.eventName !== 'OrderOpened') throw new Error('unreachable');
    expect(opened.logIndex).toBeLessThan(events[1]!.logIndex);
    const decoded = opened.args.order as Order;
    expect(hashOrder(decoded)).toBe(opened.args.quoteHash);
    expect(opened.args.quoteHash).toBe(hashOrder(order));
    expect(decoded).toEqual(order);

    // A filler reading only the logs finds it by its hash, as the devnet's filler does.
    const found = await client.getLogs({ address: ROUTER, event: XCHAIN_ROUTER_ABI[0], args: { quoteHash: hashOrder(order) }, fromBlock: 0n });
    expect(found).toHaveLength(1);
    expect(hashOrder(found[0]!.args.order as Order)).toBe(hashOrder(order));
  });
});
