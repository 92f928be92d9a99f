import {
  ANVIL_DEV_KEY,
  type Anvil,
  type CompiledContract,
  compileXchainContracts,
  deployContract,
  installPermit2,
  startAnvil,
} from '@xchain/chain-tools';
import { type Order, hashOrder, toBytes32 } from '@xchain/order-codec';
import {
  type Abi,
  type Address,
  BaseError,
  type Hex,
  createPublicClient,
  createTestClient,
  createWalletClient,
  decodeErrorResult,
  encodeFunctionData,
  getAddress,
  hashDomain,
  http,
  maxUint256,
  parseAbi,
  parseEventLogs,
  zeroAddress,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress, signTypedData } from 'viem/accounts';
import { sampleOrder as sampleEvmOrder } from '@xchain/order-codec';
import { ERC20_PERMIT_ABI, GASLESS_EXECUTOR_ABI, PERMIT2_ABI, XCHAIN_ROUTER_ABI } from './abi';
import { approveCalldata, depositAmount, depositTx, executeCalldata, relayFee } from './calls';
import {
  ERC2612_PERMIT_VALUE,
  ORDER_EIP712_TYPE,
  ORDER_TYPEHASH,
  PERMIT2_ADDRESS,
  WITNESS_TYPE_STRING,
  erc2612TypedData,
  orderWitnessHash,
  permit2NonceSlot,
  permit2TypedData,
} from './typed-data';

const CHAIN_ID = 8453;
// Fixed addresses, as the local devnet places the contracts (its registry names them).
const ROUTER = getAddress('0x7ccfeacba472f31962cb515fe4ce4477d15c4a04');
const EXECUTOR = getAddress('0x6a5e1e5500000000000000000000000000000e0e');
const USDC = getAddress('0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'); // permit token, domain version "2"
const USDT = getAddress('0xfde4c96c8593536e31f229ea8f37b2ada2699bb2'); // plain token
const FEE_RECIPIENT = privateKeyToAddress(generatePrivateKey());
const REFUNDER = privateKeyToAddress(generatePrivateKey());
const SETTLER = privateKeyToAddress(generatePrivateKey());
const TREASURY = privateKeyToAddress(generatePrivateKey());
/** The router's retention: the quote-engine's default QUOTE_RETENTION_SECS (7 days). */
const RETENTION = 604_800;

/** The errors any call below may end in: ours, Permit2's and the dev tokens'. */
const ERRORS = [
  ...XCHAIN_ROUTER_ABI,
  ...GASLESS_EXECUTOR_ABI,
  ...parseAbi([
    'error SignatureExpired(uint256 signatureDeadline)',
    'error InvalidNonce()',
    'error InvalidSigner()',
    'error InvalidSignature()',
    'error InvalidSignatureLength()',
    'error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
    'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  ]),
] as Abi;
const DEV_PERMIT_ABI = parseAbi([
  'function mint(address to, uint256 amount)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
]);

/** What a wallet receives: the typed data after JSON (no bigints, no prototypes). */
type WalletTypedData = Omit<Parameters<typeof signTypedData>[0], 'privateKey'>;
const overJson = <T>(value: T): WalletTypedData => JSON.parse(JSON.stringify(value)) as WalletTypedData;
const randomSalt = (): Hex => generatePrivateKey();
const randomNonce = (): bigint => BigInt(generatePrivateKey());

/** Gasless orders from the chain's fee-paying users, on-chain, through the real Permit2. */
describe('XchainRouter and GaslessExecutor on anvil with the canonical Permit2', () => {
  let anvil: Anvil;
  let compiled: Record<string, CompiledContract>;
  let client: ReturnType<typeof createPublicClient>;
  let testClient: ReturnType<typeof createTestClient>;
  const relayer = privateKeyToAccount(ANVIL_DEV_KEY);

  beforeAll(async () => {
    compiled = compileXchainContracts();
    anvil = await startAnvil(CHAIN_ID);
    // Anvil mines at once: poll fast so no receipt watcher outlives the suite.
    client = createPublicClient({ transport: http(anvil.rpcUrl), pollingInterval: 50 });
    testClient = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
    await installPermit2(anvil.rpcUrl);
    const place = (name: string, at: Address, args: unknown[]) =>
      deployContract({ rpcUrl: anvil.rpcUrl, deployerKey: ANVIL_DEV_KEY, contract: compiled[name]!, args, at });
    // Concurrent on purpose: deployContract serialises one deployer's sends itself.
    await Promise.all([
      place('XchainRouter', ROUTER, [REFUNDER, SETTLER, TREASURY, RETENTION]),
      place('GaslessExecutor', EXECUTOR, [PERMIT2_ADDRESS, ROUTER, FEE_RECIPIENT]),
      place('DevPermitToken', USDC, ['USD Coin', 'USDC', 6, '2']),
      place('DevToken', USDT, ['Tether USD', 'USDT', 6]),
    ]);
  }, 60_000);

  afterAll(async () => {
    await anvil?.proc.stop();
  });

  const send = async (from: Hex, to: Address, data: Hex, value = 0n) => {
    const wallet = createWalletClient({ account: privateKeyToAccount(from), transport: http(anvil.rpcUrl) });
    const receipt = await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to, data, value, chain: null }) });
    expect(receipt.status).toBe('success');
    return receipt;
  };
  /** The custom error a call ends in, decoded; fails the test when the call succeeds. */
  const revertOf = async (
    from: Address,
    to: Address,
    data: Hex,
    value = 0n,
  ): Promise<{ errorName: string; args: readonly unknown[] | undefined }> => {
    try {
      await client.call({ account: from, to, data, value });
    } catch (e) {
      const raw = e instanceof BaseError ? e.walk((x) => typeof (x as { data?: unknown }).data === 'string') : null;
      const revert = (raw as { data?: Hex } | null)?.data;
      if (!revert) throw e;
      const { errorName, args } = decodeErrorResult({ abi: ERRORS, data: revert });
      return { errorName, args };
    }
    throw new Error('the call did not revert');
  };
  const balanceOf = (token: Address, who: Address) =>
    client.readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'balanceOf', args: [who] });
  const mint = (token: Address, to: Address, amount: bigint) => send(ANVIL_DEV_KEY, token, encodeMint(to, amount));
  const encodeMint = (to: Address, amount: bigint): Hex =>
    encodeFunctionData({ abi: DEV_PERMIT_ABI, functionName: 'mint', args: [to, amount] });
  const now = async () => (await client.getBlock()).timestamp;

  const gaslessOrder = (token: Address, over: Partial<Order> = {}): Order =>
    sampleEvmOrder({
      salt: randomSalt(),
      // Quoted now: the router takes a deposit only within retention of issuedAt.
      issuedAt: BigInt(Math.floor(Date.now() / 1000)),
      srcChainId: BigInt(CHAIN_ID),
      srcToken: toBytes32('evm', token),
      depositTarget: toBytes32('evm', ROUTER),
      amountIn: 250_000_000n,
      sponsorGas: 1_234_567n,
      gasless: true,
      sponsorFees: false,
      ...over,
    });

  interface Signed {
    order: Order;
    owner: Address;
    nonce: bigint;
    deadline: bigint;
    signature: Hex;
  }
  /** The user signs the quote's Permit2 typed data exactly as a wallet would receive it. */
  const signOrder = async (userKey: Hex, order: Order, opts: { nonce?: bigint; deadline?: bigint } = {}): Promise<Signed> => {
    const nonce = opts.nonce ?? randomNonce();
    const deadline = opts.deadline ?? (await now()) + 1800n;
    const signature = await signTypedData({
      privateKey: userKey,
      ...overJson(permit2TypedData({ order, spender: EXECUTOR, nonce, deadline })),
    });
    return { order, owner: privateKeyToAddress(userKey), nonce, deadline, signature };
  };
  const execute = (s: Signed, permitSignature: Hex = '0x') => send(ANVIL_DEV_KEY, EXECUTOR, executeCalldata({ ...s, permitSignature }));
  const executeRevert = (s: Signed, permitSignature: Hex = '0x') =>
    revertOf(relayer.address, EXECUTOR, executeCalldata({ ...s, permitSignature }));

  /** The plain-token user: tokens and a standing Permit2 approval, as after a first Permit2 trade. */
  const approvedUser = async (amount: bigint): Promise<Hex> => {
    const key = generatePrivateKey();
    const user = privateKeyToAddress(key);
    await testClient.setBalance({ address: user, value: 10n ** 18n });
    await mint(USDT, user, amount);
    await send(key, USDT, approveCalldata(PERMIT2_ADDRESS, maxUint256));
    return key;
  };

  it('places the canonical Permit2, the router, the executor and the tokens at fixed addresses', async () => {
    const domain = { name: 'Permit2', chainId: BigInt(CHAIN_ID), verifyingContract: PERMIT2_ADDRESS };
    const expected = hashDomain({
      domain,
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
      },
    });
    expect(await client.readContract({ address: PERMIT2_ADDRESS, abi: PERMIT2_ABI, functionName: 'DOMAIN_SEPARATOR' })).toBe(expected);

    const read = (functionName: 'permit2' | 'router' | 'feeRecipient') =>
      client.readContract({ address: EXECUTOR, abi: GASLESS_EXECUTOR_ABI, functionName });
    expect([await read('permit2'), await read('router'), await read('feeRecipient')]).toEqual([PERMIT2_ADDRESS, ROUTER, FEE_RECIPIENT]);

    // The Solidity witness type is the lib's, character for character.
    const executorAbi = compiled['GaslessExecutor']!.abi;
    expect(await client.readContract({ address: EXECUTOR, abi: executorAbi, functionName: 'ORDER_TYPE' })).toBe(ORDER_EIP712_TYPE);
    expect(await client.readContract({ address: EXECUTOR, abi: executorAbi, functionName: 'WITNESS_TYPE_STRING' })).toBe(
      WITNESS_TYPE_STRING,
    );
    expect(await client.readContract({ address: EXECUTOR, abi: executorAbi, functionName: 'ORDER_TYPEHASH' })).toBe(ORDER_TYPEHASH);
    const order = gaslessOrder(USDC);
    expect(await client.readContract({ address: EXECUTOR, abi: executorAbi, functionName: 'witnessHash', args: [order] })).toBe(
      orderWitnessHash(order),
    );
    expect(await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'depositAmount', args: [order] })).toBe(
      depositAmount(order),
    );
    // The roles are immutables: they came along with the code.
    expect(await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'refunder' })).toBe(REFUNDER);
    expect(await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'settler' })).toBe(SETTLER);
    expect(await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'treasury' })).toBe(TREASURY);

    // Metadata and the EIP-712 domain live in code, so they survive anvil_setCode.
    const token = (address: Address, functionName: 'name' | 'decimals') =>
      client.readContract({ address, abi: ERC20_PERMIT_ABI, functionName });
    expect([await token(USDC, 'name'), await token(USDC, 'decimals'), await token(USDT, 'name'), await token(USDT, 'decimals')]).toEqual([
      'USD Coin',
      6,
      'Tether USD',
      6,
    ]);
    const [, name, version, chainId, verifyingContract] = await client.readContract({
      address: USDC,
      abi: ERC20_PERMIT_ABI,
      functionName: 'eip712Domain',
    });
    expect({ name, version, chainId, verifyingContract }).toEqual({
      name: 'USD Coin',
      version: '2',
      chainId: BigInt(CHAIN_ID),
      verifyingContract: USDC,
    });
  });

  it('relays a plain-token order after approve(Permit2): every unit reconciles and the event names the user', async () => {
    const key = await approvedUser(300_000_000n);
    const user = privateKeyToAddress(key);
    const order = gaslessOrder(USDT);
    const signed = await signOrder(key, order);
    const before = { user: await balanceOf(USDT, user), router: await balanceOf(USDT, ROUTER), fee: await balanceOf(USDT, FEE_RECIPIENT) };

    const receipt = await execute(signed);

    expect(await balanceOf(USDT, user)).toBe(before.user - order.amountIn);
    expect(await balanceOf(USDT, FEE_RECIPIENT)).toBe(before.fee + order.sponsorGas);
    expect(await balanceOf(USDT, ROUTER)).toBe(before.router + order.amountIn - order.sponsorGas);
    expect(relayFee(order) + depositAmount(order)).toBe(order.amountIn);
    expect(await balanceOf(USDT, EXECUTOR)).toBe(0n);
    const [deposited] = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Deposited' });
    expect(deposited!.address).toBe(ROUTER.toLowerCase());
    expect(deposited!.args).toEqual({ quoteHash: hashOrder(order), depositor: user, token: USDT, amount: depositAmount(order) });
    const [relayed] = parseEventLogs({ abi: GASLESS_EXECUTOR_ABI, logs: receipt.logs, eventName: 'Relayed' });
    expect(relayed!.args).toEqual({ quoteHash: hashOrder(order), owner: user, relayFee: order.sponsorGas });
    expect(
      await client.readContract({ address: ROUTER, abi: XCHAIN_ROUTER_ABI, functionName: 'deposited', args: [hashOrder(order)] }),
    ).toBe(true);
    const { wordPos, bit } = permit2NonceSlot(signed.nonce);
    const bitmap = await client.readContract({
      address: PERMIT2_ADDRESS,
      abi: PERMIT2_ABI,
      functionName: 'nonceBitmap',
      args: [user, wordPos],
    });
    expect(bitmap & bit).toBe(bit);
  });

  /** A user with tokens only: no native gas, no approval of anything. */
  const permitUser = async (amount: bigint) => {
    const key = generatePrivateKey();
    const user = privateKeyToAddress(key);
    await mint(USDC, user, amount);
    return { key, user };
  };
  /** The EIP-2612 permit a gasless quote serves: ERC2612_PERMIT_VALUE to Permit2, on the owner's token nonce now. */
  const signPermit = async (key: Hex, deadline: bigint): Promise<Hex> => {
    const owner = privateKeyToAddress(key);
    const [, name, version] = await client.readContract({ address: USDC, abi: ERC20_PERMIT_ABI, functionName: 'eip712Domain' });
    const nonce = await client.readContract({ address: USDC, abi: ERC20_PERMIT_ABI, functionName: 'nonces', args: [owner] });
    return signTypedData({
      privateKey: key,
      ...overJson(erc2612TypedData({ chainId: BigInt(CHAIN_ID), token: USDC, name, version, owner, nonce, deadline })),
    });
  };

  it('relays a permit-token order with an EIP-2612 permit and no prior approval or gas', async () => {
    const { key, user } = await permitUser(250_000_000n);
    expect(await client.getBalance({ address: user })).toBe(0n);
    expect(
      await client.readContract({ address: USDC, abi: ERC20_PERMIT_ABI, functionName: 'allowance', args: [user, PERMIT2_ADDRESS] }),
    ).toBe(0n);
    const order = gaslessOrder(USDC);
    const signed = await signOrder(key, order);
    const routerBefore = await balanceOf(USDC, ROUTER);
    const feeBefore = await balanceOf(USDC, FEE_RECIPIENT);

    const receipt = await execute(signed, await signPermit(key, signed.deadline));

    expect(await balanceOf(USDC, user)).toBe(0n);
    expect(await balanceOf(USDC, FEE_RECIPIENT)).toBe(feeBefore + order.sponsorGas);
    expect(await balanceOf(USDC, ROUTER)).toBe(routerBefore + depositAmount(order));
    expect(await balanceOf(USDC, EXECUTOR)).toBe(0n);
    // The permit approved Permit2 for the maximum (which OpenZeppelin's ERC-20 does not spend down),
    // Permit2 pulled exactly the permitted amount, and the executor left no allowance behind.
    expect(
      await client.readContract({ address: USDC, abi: ERC20_PERMIT_ABI, functionName: 'allowance', args: [user, PERMIT2_ADDRESS] }),
    ).toBe(maxUint256);
    expect(await client.readContract({ address: EXECUTOR, abi: GASLESS_EXECUTOR_ABI, functionName: 'PERMIT_VALUE' })).toBe(
      ERC2612_PERMIT_VALUE,
    );
    expect(await client.readContract({ address: USDC, abi: ERC20_PERMIT_ABI, functionName: 'allowance', args: [EXECUTOR, ROUTER] })).toBe(
      0n,
    );
    const [deposited] = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Deposited' });
    expect(deposited!.args).toEqual({
      quoteHash: hashOrder(order),
      depositor: user,
      token: USDC,
      amount: order.amountIn - order.sponsorGas,
    });
  });

  it('charges no relay fee on a sponsored order: the router gets all of amountIn', async () => {
    const key = await approvedUser(250_000_000n);
    const user = privateKeyToAddress(key);
    const order = gaslessOrder(USDT, { sponsorFees: true });
    const before = { router: await balanceOf(USDT, ROUTER), fee: await balanceOf(USDT, FEE_RECIPIENT) };

    const receipt = await execute(await signOrder(key, order));

    expect(await balanceOf(USDT, user)).toBe(0n);
    expect(await balanceOf(USDT, FEE_RECIPIENT)).toBe(before.fee);
    expect(await balanceOf(USDT, ROUTER)).toBe(before.router + order.amountIn);
    expect(parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Deposited' })[0]!.args.amount).toBe(order.amountIn);
    expect(parseEventLogs({ abi: GASLESS_EXECUTOR_ABI, logs: receipt.logs, eventName: 'Relayed' })[0]!.args.relayFee).toBe(0n);
  });

  it('refuses a signature over another order, a reused nonce and an expired deadline', async () => {
    const key = await approvedUser(1_000_000_000n);
    const user = privateKeyToAddress(key);
    const signed = await signOrder(key, gaslessOrder(USDT));

    // The same permit, but the relayer swaps in a worse order: the witness no longer matches.
    const swapped = { ...signed, order: { ...signed.order, minAmountOut: 1n } };
    expect((await executeRevert(swapped)).errorName).toBe('InvalidSigner');
    // Nor may the relayer move the user's tokens for a different owner's signature.
    expect((await executeRevert({ ...signed, owner: FEE_RECIPIENT })).errorName).toBe('InvalidSigner');

    await execute(signed);
    const reused = await signOrder(key, gaslessOrder(USDT), { nonce: signed.nonce });
    expect((await executeRevert(reused)).errorName).toBe('InvalidNonce');

    const expired = await signOrder(key, gaslessOrder(USDT), { deadline: (await now()) - 1n });
    expect(await executeRevert(expired)).toEqual({ errorName: 'SignatureExpired', args: [expired.deadline] });
    expect(await balanceOf(USDT, user)).toBe(1_000_000_000n - signed.order.amountIn);
  });

  it('still relays when someone front-runs the EIP-2612 permit', async () => {
    const { key, user } = await permitUser(250_000_000n);
    const order = gaslessOrder(USDC);
    const signed = await signOrder(key, order);
    const permitSignature = await signPermit(key, signed.deadline);
    // A griefer lifts the permit from the mempool and submits it first, burning its nonce.
    const r = `0x${permitSignature.slice(2, 66)}` as Hex;
    const s = `0x${permitSignature.slice(66, 130)}` as Hex;
    const v = Number(`0x${permitSignature.slice(130, 132)}`);
    await send(
      ANVIL_DEV_KEY,
      USDC,
      encodeFunctionData({
        abi: DEV_PERMIT_ABI,
        functionName: 'permit',
        args: [user, PERMIT2_ADDRESS, ERC2612_PERMIT_VALUE, signed.deadline, v, r, s],
      }),
    );
    expect(await client.readContract({ address: USDC, abi: ERC20_PERMIT_ABI, functionName: 'nonces', args: [user] })).toBe(1n);

    const routerBefore = await balanceOf(USDC, ROUTER);
    await execute(signed, permitSignature);
    expect(await balanceOf(USDC, user)).toBe(0n);
    expect(await balanceOf(USDC, ROUTER)).toBe(routerBefore + depositAmount(order));
  });

  it('relays two orders of one wallet whose permits were both signed on the same token nonce, in either order', async () => {
    // Two quotes asked for and signed before either is relayed: both permits carry nonce 0.
    const { key, user } = await permitUser(300_000_000n);
    const first = gaslessOrder(USDC, { amountIn: 100_000_000n });
    const second = gaslessOrder(USDC, { amountIn: 200_000_000n });
    const [a, b] = [await signOrder(key, first), await signOrder(key, second)];
    const [permitA, permitB] = [await signPermit(key, a.deadline), await signPermit(key, b.deadline)];
    expect(await client.readContract({ address: USDC, abi: ERC20_PERMIT_ABI, functionName: 'nonces', args: [user] })).toBe(0n);
    const routerBefore = await balanceOf(USDC, ROUTER);

    // The later quote is relayed first: its permit is the one used.
    await execute(b, permitB);
    expect(await client.readContract({ address: USDC, abi: ERC20_PERMIT_ABI, functionName: 'nonces', args: [user] })).toBe(1n);
    // The earlier one's permit now fails (its nonce is spent), which the executor tolerates: the
    // allowance the other permit gave covers it. Simulated first, as the relayer does.
    await client.call({ account: relayer.address, to: EXECUTOR, data: executeCalldata({ ...a, permitSignature: permitA }) });
    await execute(a, permitA);

    expect(await balanceOf(USDC, user)).toBe(0n);
    expect(await balanceOf(USDC, ROUTER)).toBe(routerBefore + depositAmount(first) + depositAmount(second));
    expect(await balanceOf(USDC, EXECUTOR)).toBe(0n);
  });

  it("still fails, with Permit2's error, an order whose used permit's allowance was revoked", async () => {
    const { key, user } = await permitUser(100_000_000n);
    const order = gaslessOrder(USDC, { amountIn: 100_000_000n });
    const signed = await signOrder(key, order);
    const permitSignature = await signPermit(key, signed.deadline);
    // The user spends the permit's allowance, then revokes it, before the relay.
    await testClient.setBalance({ address: user, value: 10n ** 18n });
    const [r, s, v] = [
      `0x${permitSignature.slice(2, 66)}`,
      `0x${permitSignature.slice(66, 130)}`,
      Number(`0x${permitSignature.slice(130, 132)}`),
    ];
    await send(
      ANVIL_DEV_KEY,
      USDC,
      encodeFunctionData({
        abi: DEV_PERMIT_ABI,
        functionName: 'permit',
        args: [user, PERMIT2_ADDRESS, ERC2612_PERMIT_VALUE, signed.deadline, v, r as Hex, s as Hex],
      }),
    );
    await send(key, USDC, approveCalldata(PERMIT2_ADDRESS, 0n));
    await expect(
      client.call({ account: relayer.address, to: EXECUTOR, data: executeCalldata({ ...signed, permitSignature }) }),
    ).rejects.toThrow(/TRANSFER_FROM_FAILED/);
    expect(await balanceOf(USDC, user)).toBe(100_000_000n);
  });

  it('relays an order once: the same call and a fresh signature for the same order both revert', async () => {
    const key = await approvedUser(600_000_000n);
    const user = privateKeyToAddress(key);
    const signed = await signOrder(key, gaslessOrder(USDT));
    await execute(signed);
    const after = await balanceOf(USDT, user);

    expect((await executeRevert(signed)).errorName).toBe('InvalidNonce');
    const again = await signOrder(key, signed.order);
    expect(await executeRevert(again)).toEqual({ errorName: 'AlreadyDeposited', args: [hashOrder(signed.order)] });
    expect(await balanceOf(USDT, user)).toBe(after);
  });

  it('refuses orders the executor does not relay: not gasless, native source, another chain, another router, past retention', async () => {
    const key = await approvedUser(250_000_000n);
    const stale = gaslessOrder(USDT, { issuedAt: (await now()) - BigInt(RETENTION) - 1n });
    expect(await executeRevert(await signOrder(key, stale))).toEqual({
      errorName: 'RetentionOver',
      args: [stale.issuedAt + BigInt(RETENTION)],
    });
    expect((await executeRevert(await signOrder(key, gaslessOrder(USDT, { gasless: false })))).errorName).toBe('NotGasless');
    expect((await executeRevert(await signOrder(key, gaslessOrder(zeroAddress)))).errorName).toBe('NativeSource');
    expect((await executeRevert(await signOrder(key, gaslessOrder(USDT, { srcChainId: 1n })))).errorName).toBe('WrongSourceChain');
    const elsewhere = gaslessOrder(USDT, { depositTarget: toBytes32('evm', EXECUTOR) });
    expect((await executeRevert(await signOrder(key, elsewhere))).errorName).toBe('WrongDepositTarget');
  });

  describe('plain deposits through depositTx', () => {
    const plainOrder = (token: Address, over: Partial<Order> = {}) =>
      gaslessOrder(token, { gasless: false, sponsorGas: 0n, amountIn: 3n * 10n ** 17n + 1n, ...over });

    it('deposits the native asset once; a wrong value, target or chain reverts', async () => {
      const key = generatePrivateKey();
      const user = privateKeyToAddress(key);
      await testClient.setBalance({ address: user, value: 10n ** 18n });
      const order = plainOrder(zeroAddress);
      const tx = depositTx(order, ROUTER);
      expect(tx.value).toBe(order.amountIn);

      expect((await revertOf(user, tx.to, tx.data, tx.value - 1n)).errorName).toBe('WrongValue');
      const routerBefore = await client.getBalance({ address: ROUTER });
      const receipt = await send(key, tx.to, tx.data, tx.value);
      expect(await client.getBalance({ address: ROUTER })).toBe(routerBefore + order.amountIn);
      expect(parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Deposited' })[0]!.args).toEqual({
        quoteHash: hashOrder(order),
        depositor: user,
        token: zeroAddress,
        amount: order.amountIn,
      });

      expect(await revertOf(user, tx.to, tx.data, tx.value)).toEqual({ errorName: 'AlreadyDeposited', args: [hashOrder(order)] });
      const wrongTarget = depositTx(plainOrder(zeroAddress, { depositTarget: toBytes32('evm', EXECUTOR) }), ROUTER);
      expect((await revertOf(user, wrongTarget.to, wrongTarget.data, wrongTarget.value)).errorName).toBe('WrongDepositTarget');
      const wrongChain = depositTx(plainOrder(zeroAddress, { srcChainId: 42161n }), ROUTER);
      expect((await revertOf(user, wrongChain.to, wrongChain.data, wrongChain.value)).errorName).toBe('WrongSourceChain');
    });

    it('deposits an ERC-20 after approve(router, depositAmount) once; value with a token reverts', async () => {
      const key = generatePrivateKey();
      const user = privateKeyToAddress(key);
      await testClient.setBalance({ address: user, value: 10n ** 18n });
      const order = plainOrder(USDT, { amountIn: 77_000_001n });
      await mint(USDT, user, order.amountIn);
      await send(key, USDT, approveCalldata(ROUTER, depositAmount(order)));
      const tx = depositTx(order, ROUTER);
      expect(tx.value).toBe(0n);

      expect((await revertOf(user, tx.to, tx.data, 1n)).errorName).toBe('WrongValue');
      const routerBefore = await balanceOf(USDT, ROUTER);
      const receipt = await send(key, tx.to, tx.data);
      expect(await balanceOf(USDT, user)).toBe(0n);
      expect(await balanceOf(USDT, ROUTER)).toBe(routerBefore + order.amountIn);
      expect(parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Deposited' })[0]!.args).toEqual({
        quoteHash: hashOrder(order),
        depositor: user,
        token: USDT,
        amount: order.amountIn,
      });
      expect(await revertOf(user, tx.to, tx.data)).toEqual({ errorName: 'AlreadyDeposited', args: [hashOrder(order)] });
    });
  });
});
