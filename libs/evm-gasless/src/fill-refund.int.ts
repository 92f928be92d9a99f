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
  getAbiItem,
  getAddress,
  http,
  maxUint256,
  parseAbi,
  parseEventLogs,
  zeroAddress,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts';
import { ERC20_PERMIT_ABI, XCHAIN_ROUTER_ABI } from './abi';
import { approveCalldata, cancelTx, claimTx, depositAmount, depositTx, fillTx, refundTx, retainedUntil } from './calls';

const CHAIN_ID = 8453;
const OTHER_CHAIN_ID = 42161n;
// The router at base's registry address, as the local devnet places it; another chain's router
// stands as the deposit target of orders that come here to be filled.
const ROUTER = getAddress('0xB662F3402a4748403b63cE240BF6b9EeB55e5727');
const OTHER_ROUTER = getAddress('0x2749Cd0bB950d46CF4a5e23773F46146BE100aFd');
const USDT = getAddress('0xfde4c96c8593536e31f229ea8f37b2ada2699bb2');
const REFUNDER_KEY = generatePrivateKey();
const REFUNDER = privateKeyToAddress(REFUNDER_KEY);
const SETTLER_KEY = generatePrivateKey();
const SETTLER = privateKeyToAddress(SETTLER_KEY);
// A fresh account: every unit it holds came from a claim.
const TREASURY = privateKeyToAddress(generatePrivateKey());
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
    (list as Record<string, unknown>[] | undefined)?.map((p) => ({
      name: p['name'],
      type: p['type'],
      indexed: p['indexed'] ?? false,
      components: params(p['components']),
    }));
  return {
    type: item['type'],
    name: item['name'],
    stateMutability: item['stateMutability'],
    inputs: params(item['inputs']),
    outputs: params(item['outputs']),
  };
}

/** The router's retention here: the quote-engine's default QUOTE_RETENTION_SECS (7 days), as in production. */
const RETENTION = 604_800;
/** Orders are quoted now unless a test says otherwise (anvil's clock starts at the wall clock's). */
const issuedNow = () => BigInt(Math.floor(Date.now() / 1000));

/** Fills, cancels, refunds, claims and the order event on one anvil: the router as the source and the destination chain. */
describe('XchainRouter fill, cancel, refund and claim on anvil', () => {
  let anvil: Anvil;
  let compiled: Record<string, CompiledContract>;
  let client: ReturnType<typeof createPublicClient>;
  let testClient: ReturnType<typeof createTestClient>;

  beforeAll(async () => {
    compiled = compileXchainContracts();
    anvil = await startAnvil(CHAIN_ID);
    client = createPublicClient({ transport: http(anvil.rpcUrl), pollingInterval: 50 });
    testClient = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
    const place = (name: string, at: Address, args: unknown[]) =>
      deployContract({ rpcUrl: anvil.rpcUrl, deployerKey: ANVIL_DEV_KEY, contract: compiled[name]!, args, at });
    await Promise.all([
      place('XchainRouter', ROUTER, [REFUNDER, SETTLER, TREASURY, RETENTION]),
      place('DevToken', USDT, ['Tether USD', 'USDT', 6]),
    ]);
    await Promise.all([testClient.setBalance({ address: REFUNDER, value: ETH }), testClient.setBalance({ address: SETTLER, value: ETH })]);
  }, 60_000);

  afterAll(async () => {
    await anvil?.proc.stop();
  });

  const send = async (from: Hex, tx: { to: Address; data: Hex; value?: bigint }): Promise<TransactionReceipt> => {
    const wallet = createWalletClient({ account: privateKeyToAccount(from), transport: http(anvil.rpcUrl) });
    const receipt = await client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to: tx.to, data: tx.data, value: tx.value ?? 0n, chain: null }),
    });
    expect(receipt.status).toBe('success');
    return receipt;
  };
  /** The custom error a call ends in, decoded; fails the test when the call succeeds. */
  const revertOf = async (
    from: Address,
    tx: { to: Address; data: Hex; value?: bigint },
  ): Promise<{ errorName: string; args: readonly unknown[] | undefined }> => {
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
  const tokenBalance = (who: Address) =>
    client.readContract({ address: USDT, abi: ERC20_PERMIT_ABI, functionName: 'balanceOf', args: [who] });
  const nativeBalance = (who: Address) => client.getBalance({ address: who });
  const gasPaid = (r: TransactionReceipt) => r.gasUsed * r.effectiveGasPrice;
  const read = (functionName: 'deposited' | 'filled' | 'refunded' | 'cancelled' | 'claimed', order: Order) =>
    client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName, args: [hashOrder(order)] });
  const chainNow = async () => (await client.getBlock({ blockTag: 'latest' })).timestamp;
  /** Mines one empty block at `timestamp`: calls then run at that second (anvil's calls take the latest block's time). */
  const mineAt = async (timestamp: bigint) => {
    await testClient.setNextBlockTimestamp({ timestamp });
    await testClient.mine({ blocks: 1 });
  };

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

  /** An order from another chain, to be delivered here, quoted now. */
  const inboundOrder = (dstToken: Address, recipient: Address, over: Partial<Order> = {}): Order =>
    sampleOrder({
      issuedAt: issuedNow(),
      expiresAt: issuedNow() + 1800n,
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
  /** An order deposited here, for another chain (or, with dstChainId = here, a same-chain order), quoted now. */
  const outboundOrder = (srcToken: Address, refundTo: Address, over: Partial<Order> = {}): Order =>
    sampleOrder({
      issuedAt: issuedNow(),
      expiresAt: issuedNow() + 1800n,
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

  it('serves the ABI the lib declares, item for item, and the roles and retention it was deployed with', async () => {
    const ours = (XCHAIN_ROUTER_ABI as readonly Record<string, unknown>[]).map(callerView);
    const built = (compiled['XchainRouter']!.abi as readonly Record<string, unknown>[])
      .filter((i) => i['type'] !== 'constructor')
      .map(callerView);
    const key = (i: unknown) => JSON.stringify(i);
    expect(ours.map(key).sort()).toEqual(built.map(key).sort());
    expect(await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'refunder' })).toBe(REFUNDER);
    expect(await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'settler' })).toBe(SETTLER);
    expect(await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'treasury' })).toBe(TREASURY);
    expect(await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'retention' })).toBe(BigInt(RETENTION));
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
      expect(filled!.args).toEqual({
        quoteHash: hashOrder(order),
        filler: filler.address,
        recipient,
        token: USDT,
        amount: order.amountOut,
        gasDrop: order.gasDrop,
      });
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
      expect(filled!.args).toEqual({
        quoteHash: hashOrder(order),
        filler: filler.address,
        recipient,
        token: zeroAddress,
        amount: order.amountOut,
        gasDrop: order.gasDrop,
      });
    });

    it('fills an order once: a second fill, by the same filler or another, reverts AlreadyFilled', async () => {
      const [first, second] = [await wallet(300_000_000n), await wallet(300_000_000n)];
      const recipient = freshAddress();
      const order = inboundOrder(USDT, recipient);
      await send(first.key, fillTx(order, order.amountOut, ROUTER));

      const again = fillTx(order, order.amountOut, ROUTER);
      expect(await revertOf(first.address, again)).toEqual({ errorName: 'AlreadyFilled', args: [hashOrder(order)] });
      expect(await revertOf(second.address, fillTx(order, order.amountOut + 1n, ROUTER))).toEqual({
        errorName: 'AlreadyFilled',
        args: [hashOrder(order)],
      });
      expect(await tokenBalance(recipient)).toBe(order.amountOut);
    });

    it('refuses a fill below minAmountOut, and takes one exactly at it', async () => {
      const filler = await wallet(300_000_000n);
      const recipient = freshAddress();
      const order = inboundOrder(USDT, recipient);
      const below = fillTx(order, order.minAmountOut - 1n, ROUTER);
      expect(await revertOf(filler.address, below)).toEqual({
        errorName: 'BelowMinimum',
        args: [order.minAmountOut - 1n, order.minAmountOut],
      });
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

    it('refunds a cross-chain order in the block after its deposit, its quote not even expired: no wait', async () => {
      const user = await wallet(3_000_000_000n);
      const refundTo = freshAddress();
      const order = outboundOrder(USDT, refundTo, { expiresAt: issuedNow() + 3600n });
      const deposited = await deposit(order, user);
      const refunded = await send(REFUNDER_KEY, refundTx(order, ROUTER));
      expect(refunded.blockNumber).toBe(deposited.blockNumber + 1n);
      expect(await tokenBalance(refundTo)).toBe(order.amountIn);
    });

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
      expect((await revertOf(REFUNDER, refundTx({ ...order, depositTarget: toBytes32('evm', OTHER_ROUTER) }, ROUTER))).errorName).toBe(
        'WrongDepositTarget',
      );

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

  describe('retention: deposits and fills until issuedAt + retention, to the second', () => {
    /** An order whose retention ends `secs` seconds after the latest block. */
    const retainedFor = async (secs: bigint) => (await chainNow()) + secs - BigInt(RETENTION);

    it('takes a deposit at retainedUntil and refuses one a second later (RetentionOver), taking nothing', async () => {
      const user = await wallet(3_000_000_000n);
      const issuedAt = await retainedFor(60n);
      const [onTime, late] = [outboundOrder(USDT, freshAddress(), { issuedAt }), outboundOrder(USDT, freshAddress(), { issuedAt })];
      const until = retainedUntil(onTime, RETENTION);
      expect(await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'retainedUntil', args: [onTime] })).toBe(
        until,
      );

      await testClient.setNextBlockTimestamp({ timestamp: until });
      await send(user.key, depositTx(onTime, ROUTER));
      expect(await read('deposited', onTime)).toBe(true);

      await mineAt(until + 1n);
      const before = await tokenBalance(user.address);
      expect(await revertOf(user.address, depositTx(late, ROUTER))).toEqual({ errorName: 'RetentionOver', args: [until] });
      expect(await read('deposited', late)).toBe(false);
      expect(await tokenBalance(user.address)).toBe(before);
    });

    it('takes a fill at retainedUntil and refuses one a second later (RetentionOver)', async () => {
      const filler = await wallet(300_000_000n);
      const issuedAt = await retainedFor(60n);
      const [onTime, late] = [inboundOrder(USDT, freshAddress(), { issuedAt }), inboundOrder(USDT, freshAddress(), { issuedAt })];
      const until = retainedUntil(onTime, RETENTION);

      await testClient.setNextBlockTimestamp({ timestamp: until });
      await send(filler.key, fillTx(onTime, onTime.amountOut, ROUTER));
      expect(await tokenBalance(`0x${onTime.recipient.slice(26)}`)).toBe(onTime.amountOut);

      await mineAt(until + 1n);
      expect(await revertOf(filler.address, fillTx(late, late.amountOut, ROUTER))).toEqual({ errorName: 'RetentionOver', args: [until] });
      expect(await read('filled', late)).toBe(false);
    });

    it('does not look at expiresAt: an expired quote within retention is still filled', async () => {
      const filler = await wallet(300_000_000n);
      const recipient = freshAddress();
      const order = inboundOrder(USDT, recipient, { issuedAt: issuedNow() - 3600n, expiresAt: issuedNow() - 1800n });
      await send(filler.key, fillTx(order, order.amountOut, ROUTER));
      expect(await tokenBalance(recipient)).toBe(order.amountOut);
    });
  });

  describe('cancel (on the destination): no fill after it', () => {
    it('makes a later fill revert OrderCancelled, the recipient getting nothing and the filler keeping its tokens', async () => {
      const filler = await wallet(300_000_000n);
      const recipient = freshAddress();
      const order = inboundOrder(USDT, recipient);
      const receipt = await send(REFUNDER_KEY, cancelTx(order, ROUTER));
      expect(parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Cancelled' }).map((e) => e.args)).toEqual([
        { quoteHash: hashOrder(order) },
      ]);
      expect(await read('cancelled', order)).toBe(true);

      expect(await revertOf(filler.address, fillTx(order, order.amountOut, ROUTER))).toEqual({
        errorName: 'OrderCancelled',
        args: [hashOrder(order)],
      });
      expect([await read('filled', order), await tokenBalance(recipient), await tokenBalance(filler.address)]).toEqual([
        false,
        0n,
        300_000_000n,
      ]);
    });

    it('refuses a stranger, the settler and an order for another chain; cancelling twice succeeds with one event', async () => {
      const order = inboundOrder(USDT, freshAddress());
      expect((await revertOf(freshAddress(), cancelTx(order, ROUTER))).errorName).toBe('NotRefunder');
      expect((await revertOf(SETTLER, cancelTx(order, ROUTER))).errorName).toBe('NotRefunder');
      expect((await revertOf(REFUNDER, cancelTx({ ...order, dstChainId: OTHER_CHAIN_ID }, ROUTER))).errorName).toBe(
        'WrongDestinationChain',
      );
      expect(await read('cancelled', order)).toBe(false);

      const first = await send(REFUNDER_KEY, cancelTx(order, ROUTER));
      // A retried operator transaction: it lands, and says nothing new.
      const second = await send(REFUNDER_KEY, cancelTx(order, ROUTER));
      expect(parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: first.logs, eventName: 'Cancelled' })).toHaveLength(1);
      expect(second.logs).toEqual([]);
      expect(
        await client.getLogs({
          address: ROUTER,
          event: getAbiItem({ abi: XCHAIN_ROUTER_ABI, name: 'Cancelled' }),
          args: { quoteHash: hashOrder(order) },
          fromBlock: 0n,
        }),
      ).toHaveLength(1);
      expect(await read('cancelled', order)).toBe(true);
    });

    it('refuses to cancel a filled order (AlreadyFilled)', async () => {
      const filler = await wallet(300_000_000n);
      const order = inboundOrder(USDT, freshAddress());
      await send(filler.key, fillTx(order, order.amountOut, ROUTER));
      expect(await revertOf(REFUNDER, cancelTx(order, ROUTER))).toEqual({ errorName: 'AlreadyFilled', args: [hashOrder(order)] });
      expect(await read('cancelled', order)).toBe(false);
    });
  });

  describe('claim: delivered deposits to the treasury, by the settler', () => {
    const deposit = async (order: Order, user: { key: Hex }) => send(user.key, depositTx(order, ROUTER));

    it('moves exactly depositAmount of each order, ERC-20 and native, to the treasury in one batch, once', async () => {
      const user = await wallet(3_000_000_000n);
      const erc20 = outboundOrder(USDT, freshAddress(), userPaysGas);
      const native = outboundOrder(zeroAddress, freshAddress(), { amountIn: ETH + 13n });
      await deposit(erc20, user);
      await deposit(native, user);
      const before = {
        token: await tokenBalance(TREASURY),
        native: await nativeBalance(TREASURY),
        routerToken: await tokenBalance(ROUTER),
        routerNative: await nativeBalance(ROUTER),
      };

      const receipt = await send(SETTLER_KEY, claimTx([erc20, native], ROUTER));

      expect(depositAmount(erc20)).toBe(250_000_007n - 1_234_567n);
      expect(await tokenBalance(TREASURY)).toBe(before.token + depositAmount(erc20));
      expect(await nativeBalance(TREASURY)).toBe(before.native + ETH + 13n);
      expect(await tokenBalance(ROUTER)).toBe(before.routerToken - depositAmount(erc20));
      expect(await nativeBalance(ROUTER)).toBe(before.routerNative - ETH - 13n);
      expect(parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Claimed' }).map((e) => e.args)).toEqual([
        { quoteHash: hashOrder(erc20), treasury: TREASURY, token: USDT, amount: depositAmount(erc20) },
        { quoteHash: hashOrder(native), treasury: TREASURY, token: zeroAddress, amount: ETH + 13n },
      ]);
      expect([await read('claimed', erc20), await read('claimed', native)]).toEqual([true, true]);

      // Twice: in a later batch, or twice in one.
      expect(await revertOf(SETTLER, claimTx([native], ROUTER))).toEqual({ errorName: 'AlreadyClaimed', args: [hashOrder(native)] });
      const fresh = outboundOrder(USDT, freshAddress());
      await deposit(fresh, user);
      expect(await revertOf(SETTLER, claimTx([fresh, fresh], ROUTER))).toEqual({ errorName: 'AlreadyClaimed', args: [hashOrder(fresh)] });
      expect(await tokenBalance(TREASURY)).toBe(before.token + depositAmount(erc20));
    });

    it('refuses a stranger and the refunder (NotSettler)', async () => {
      const user = await wallet(3_000_000_000n);
      const order = outboundOrder(USDT, freshAddress());
      await deposit(order, user);
      expect((await revertOf(user.address, claimTx([order], ROUTER))).errorName).toBe('NotSettler');
      expect((await revertOf(REFUNDER, claimTx([order], ROUTER))).errorName).toBe('NotSettler');
      expect(await read('claimed', order)).toBe(false);
    });

    it('refuses an order refunded, never deposited, or of another chain or router, and then claims none of the batch', async () => {
      const user = await wallet(3_000_000_000n);
      const good = outboundOrder(USDT, freshAddress());
      const refunded = outboundOrder(USDT, freshAddress());
      await deposit(good, user);
      await deposit(refunded, user);
      await send(REFUNDER_KEY, refundTx(refunded, ROUTER));
      const never = outboundOrder(USDT, freshAddress());

      expect(await revertOf(SETTLER, claimTx([good, refunded], ROUTER))).toEqual({
        errorName: 'AlreadyRefunded',
        args: [hashOrder(refunded)],
      });
      expect(await revertOf(SETTLER, claimTx([good, never], ROUTER))).toEqual({ errorName: 'NotDeposited', args: [hashOrder(never)] });
      expect((await revertOf(SETTLER, claimTx([good, { ...good, srcChainId: 1n }], ROUTER))).errorName).toBe('WrongSourceChain');
      expect((await revertOf(SETTLER, claimTx([good, { ...good, depositTarget: toBytes32('evm', OTHER_ROUTER) }], ROUTER))).errorName).toBe(
        'WrongDepositTarget',
      );
      expect(await read('claimed', good)).toBe(false);

      // A refused batch changed nothing: the good order alone is claimed afterwards.
      const treasuryBefore = await tokenBalance(TREASURY);
      await send(SETTLER_KEY, claimTx([good], ROUTER));
      expect(await tokenBalance(TREASURY)).toBe(treasuryBefore + good.amountIn);
    });

    it('makes a later refund revert AlreadyClaimed, the refund address getting nothing', async () => {
      const user = await wallet(3_000_000_000n);
      const refundTo = freshAddress();
      const order = outboundOrder(USDT, refundTo);
      await deposit(order, user);
      await send(SETTLER_KEY, claimTx([order], ROUTER));
      expect(await revertOf(REFUNDER, refundTx(order, ROUTER))).toEqual({ errorName: 'AlreadyClaimed', args: [hashOrder(order)] });
      expect(await tokenBalance(refundTo)).toBe(0n);
    });
  });

  describe('a same-chain order (source and destination both here)', () => {
    const sameChain = (refundTo: Address, recipient: Address) =>
      outboundOrder(USDT, refundTo, {
        dstChainId: BigInt(CHAIN_ID),
        recipient: toBytes32('evm', recipient),
        amountIn: 50_000_000n,
        amountOut: 49_900_000n,
        minAmountOut: 49_800_000n,
      });

    it('is filled only after its deposit, and then cannot be refunded (AlreadyFilled)', async () => {
      const [user, filler] = [await wallet(100_000_000n), await wallet(100_000_000n)];
      const [refundTo, recipient] = [freshAddress(), freshAddress()];
      const order = sameChain(refundTo, recipient);
      expect(await revertOf(filler.address, fillTx(order, order.amountOut, ROUTER))).toEqual({
        errorName: 'NotDeposited',
        args: [hashOrder(order)],
      });
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

      expect(await revertOf(filler.address, fillTx(order, order.amountOut, ROUTER))).toEqual({
        errorName: 'AlreadyRefunded',
        args: [hashOrder(order)],
      });
      expect(await tokenBalance(recipient)).toBe(0n);
    });

    it('is claimed only once filled here (NotFilled before)', async () => {
      const [user, filler] = [await wallet(100_000_000n), await wallet(100_000_000n)];
      const order = sameChain(freshAddress(), freshAddress());
      await send(user.key, depositTx(order, ROUTER));
      expect(await revertOf(SETTLER, claimTx([order], ROUTER))).toEqual({ errorName: 'NotFilled', args: [hashOrder(order)] });
      await send(filler.key, fillTx(order, order.amountOut, ROUTER));
      const treasuryBefore = await tokenBalance(TREASURY);
      await send(SETTLER_KEY, claimTx([order], ROUTER));
      expect(await tokenBalance(TREASURY)).toBe(treasuryBefore + order.amountIn);
    });
  });

  it('opens every deposit with OrderOpened, before Deposited, carrying an order that re-hashes to its quote hash', async () => {
    const user = await wallet(300_000_000n);
    const order = outboundOrder(USDT, freshAddress(), {
      ...userPaysGas,
      gasDrop: 123n,
      referrersHash: generatePrivateKey(),
      tradeType: 3,
      slippageBps: 77,
      srcSlippageBps: 5,
    });
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
    const found = await client.getLogs({
      address: ROUTER,
      event: XCHAIN_ROUTER_ABI[0],
      args: { quoteHash: hashOrder(order) },
      fromBlock: 0n,
    });
    expect(found).toHaveLength(1);
    expect(hashOrder(found[0]!.args.order as Order)).toBe(hashOrder(order));
  });
});
