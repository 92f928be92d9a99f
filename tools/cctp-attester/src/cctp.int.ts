import {
  CCTP_DOMAINS,
  CCTP_MESSAGE_TRANSMITTER_V2_ABI,
  CCTP_TOKEN_MESSENGER_V2_ABI,
  CctpMessagesResponseSchema,
  type CctpWireMessage,
  addressToBytes32,
  decodeCctpBurnBody,
  decodeCctpMessage,
} from '@xchain/cctp';
import { ANVIL_DEV_KEY, type Anvil, compileXchainContracts, deployContract, startAnvil } from '@xchain/chain-tools';
import { until } from '@xchain/stack';
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  type Hex,
  type PublicClient,
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  keccak256,
  parseAbi,
  parseEventLogs,
  recoverAddress,
  zeroHash,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress, sign } from 'viem/accounts';
import { DEV_CCTP_ATTESTER_KEY } from './settings';
import { type Attester, startAttester } from './start-attester';

const BASE = CCTP_DOMAINS.base; // 6
const ARBITRUM = CCTP_DOMAINS.arbitrum; // 3
// The registry's USDC on each chain; the stand-ins at one address on both, as CCTP V2 deploys them.
const USDC: Record<number, Address> = {
  [BASE]: getAddress('0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'),
  [ARBITRUM]: getAddress('0xaf88d065e77c8cc2239327c5edb3a432268e5831'),
};
const TRANSMITTER = getAddress('0xcc7200000000000000000000000000000000a002');
const MESSENGER = getAddress('0xcc7200000000000000000000000000000000a001');
const FEE_RECIPIENT = privateKeyToAddress(generatePrivateKey());
const FAST_FEE_BPS = 1;
const FAST_CONFIRMATIONS = 2;
const CONFIRMATIONS = 3;
const TOKEN_ABI = parseAbi([
  'function mint(address to, uint256 amount)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'function balanceOf(address) view returns (uint256)',
]);
const ERRORS_ABI = [...CCTP_MESSAGE_TRANSMITTER_V2_ABI, ...CCTP_TOKEN_MESSENGER_V2_ABI];

/** Circle's CCTP V2 on two local chains: the stand-in contracts and the attestation stand-in. */
describe('CCTP V2 stand-ins: base → arbitrum through the attester', () => {
  const anvils: Record<number, Anvil> = {};
  const clients: Record<number, PublicClient> = {};
  let attester: Attester;
  const user = privateKeyToAccount(generatePrivateKey());
  const relayer = privateKeyToAccount(ANVIL_DEV_KEY);
  const recipient = privateKeyToAddress(generatePrivateKey());

  beforeAll(async () => {
    const compiled = compileXchainContracts();
    [anvils[BASE], anvils[ARBITRUM]] = await Promise.all([startAnvil(8453, { port: 18945 }), startAnvil(42161, { port: 18946 })]);
    for (const domain of [BASE, ARBITRUM]) {
      const rpcUrl = anvils[domain]!.rpcUrl;
      // Anvil mines at once: poll fast so no receipt watcher outlives the suite.
      clients[domain] = createPublicClient({ transport: http(rpcUrl, { timeout: 10_000 }), pollingInterval: 50 });
      const place = (name: string, at: Address, args: unknown[]) =>
        deployContract({ rpcUrl, deployerKey: ANVIL_DEV_KEY, contract: compiled[name]!, args, at });
      await Promise.all([
        place('DevPermitToken', USDC[domain]!, ['USD Coin', 'USDC', 6, '2']),
        place('CctpMessageTransmitterV2Standin', TRANSMITTER, [domain, privateKeyToAddress(DEV_CCTP_ATTESTER_KEY)]),
        place('CctpTokenMessengerV2Standin', MESSENGER, [TRANSMITTER, USDC[domain], FEE_RECIPIENT]),
      ]);
      await createTestClient({ mode: 'anvil', transport: http(rpcUrl) }).setBalance({ address: user.address, value: 10n ** 18n });
    }
    attester = await startAttester({
      port: 18947,
      domains: Object.fromEntries(
        [BASE, ARBITRUM].map((d) => [d, { rpcUrl: anvils[d]!.rpcUrl, messageTransmitter: TRANSMITTER, tokenMessenger: MESSENGER }]),
      ),
      attesterKey: DEV_CCTP_ATTESTER_KEY,
      confirmations: CONFIRMATIONS,
      fastConfirmations: FAST_CONFIRMATIONS,
      fastFeeBps: FAST_FEE_BPS,
      rpcTimeoutMs: 5_000,
    });
  }, 120_000);

  afterAll(async () => {
    await attester?.close();
    await Promise.all(Object.values(anvils).map((a) => a.proc.stop()));
  });

  const write = async (
    domain: number,
    account: typeof user,
    address: Address,
    abi: typeof TOKEN_ABI | typeof ERRORS_ABI,
    functionName: string,
    args: unknown[],
  ) => {
    const wallet = createWalletClient({ account, transport: http(anvils[domain]!.rpcUrl, { timeout: 10_000 }) });
    const hash = await wallet.writeContract({ address, abi, functionName, args, chain: null } as Parameters<
      typeof wallet.writeContract
    >[0]);
    const receipt = await clients[domain]!.waitForTransactionReceipt({ hash, timeout: 10_000 });
    expect(receipt.status).toBe('success');
    return receipt;
  };
  const balance = (domain: number, of: Address) =>
    clients[domain]!.readContract({ address: USDC[domain]!, abi: TOKEN_ABI, functionName: 'balanceOf', args: [of] });
  const mine = (domain: number, blocks: number) =>
    createTestClient({ mode: 'anvil', transport: http(anvils[domain]!.rpcUrl) }).mine({ blocks });

  /** Mints `amount` USDC to the user on base and burns it towards `destination`. */
  const burn = async (amount: bigint, opts: { destination?: number; maxFee?: bigint; minFinality?: number } = {}) => {
    await write(BASE, user, USDC[BASE]!, TOKEN_ABI, 'mint', [user.address, amount]);
    await write(BASE, user, USDC[BASE]!, TOKEN_ABI, 'approve', [MESSENGER, amount]);
    return write(BASE, user, MESSENGER, ERRORS_ABI, 'depositForBurn', [
      amount,
      opts.destination ?? ARBITRUM,
      addressToBytes32(recipient),
      USDC[BASE],
      zeroHash,
      opts.maxFee ?? 0n,
      opts.minFinality ?? 2000,
    ]);
  };
  const get = async (path: string) => {
    const res = await fetch(`${attester.url}${path}`, { signal: AbortSignal.timeout(10_000) });
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, unknown> };
  };
  const messagesOf = async (txHash: Hex, domain = BASE) => {
    const res = await get(`/v2/messages/${domain}?transactionHash=${txHash}`);
    expect(res.status).toBe(200);
    // What a client parses (@xchain/cctp), equal to what was served: the schema drops and changes nothing.
    const { messages } = CctpMessagesResponseSchema.parse(res.body);
    expect(messages).toEqual((res.body as { messages: CctpWireMessage[] }).messages);
    return messages;
  };
  const attested = (txHash: Hex) =>
    until(
      `the attestation of ${txHash}`,
      async () => {
        const [m] = await messagesOf(txHash);
        return m?.status === 'complete' ? m : undefined;
      },
      { timeoutMs: 10_000 },
    );
  /** The revert reason of `receiveMessage` on arbitrum, from the relayer; fails when it does not revert. */
  const receiveReverts = async (message: Hex, attestation: Hex): Promise<string> => {
    try {
      await clients[ARBITRUM]!.simulateContract({
        address: TRANSMITTER,
        abi: CCTP_MESSAGE_TRANSMITTER_V2_ABI,
        functionName: 'receiveMessage',
        args: [message, attestation],
        account: relayer,
      });
    } catch (err) {
      const reverted = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
      if (reverted instanceof ContractFunctionRevertedError) return reverted.reason ?? String(reverted.data?.errorName);
      throw err;
    }
    throw new Error('receiveMessage did not revert');
  };

  it('burns on base, is pending until its confirmations, and mints amount − fee once on arbitrum', async () => {
    const amount = 250_000_000n; // 250 USDC
    const fee = (amount * BigInt(FAST_FEE_BPS)) / 10_000n;
    const before = await balance(BASE, user.address);
    const receipt = await burn(amount, { maxFee: 100_000n, minFinality: 1000 });
    expect(await balance(BASE, user.address)).toBe(before); // minted `amount`, then burned it
    expect(await balance(BASE, MESSENGER)).toBe(amount);

    // On chain: the message as emitted, its nonce and executed finality left to the attester.
    const [sent] = parseEventLogs({ abi: CCTP_MESSAGE_TRANSMITTER_V2_ABI, eventName: 'MessageSent', logs: receipt.logs });
    const emitted = decodeCctpMessage(sent!.args.message);
    expect(sent!.address).toBe(TRANSMITTER.toLowerCase());
    expect(emitted).toMatchObject({
      version: 1,
      sourceDomain: BASE,
      destinationDomain: ARBITRUM,
      nonce: zeroHash,
      finalityThresholdExecuted: 0,
    });
    expect(emitted.sender).toBe(addressToBytes32(MESSENGER));
    expect(emitted.recipient).toBe(addressToBytes32(MESSENGER));
    expect(decodeCctpBurnBody(emitted.messageBody)).toEqual({
      version: 1,
      burnToken: addressToBytes32(USDC[BASE]!),
      mintRecipient: addressToBytes32(recipient),
      amount,
      messageSender: addressToBytes32(user.address),
      maxFee: 100_000n,
      feeExecuted: 0n,
      expirationBlock: 0n,
      hookData: '0x',
    });
    const [deposit] = parseEventLogs({ abi: CCTP_TOKEN_MESSENGER_V2_ABI, eventName: 'DepositForBurn', logs: receipt.logs });
    expect(deposit!.args).toEqual({
      burnToken: USDC[BASE],
      amount,
      depositor: user.address,
      mintRecipient: addressToBytes32(recipient),
      destinationDomain: ARBITRUM,
      destinationTokenMessenger: addressToBytes32(MESSENGER),
      destinationCaller: zeroHash,
      maxFee: 100_000n,
      minFinalityThreshold: 1000,
      hookData: '0x',
    });

    const [pending] = await messagesOf(receipt.transactionHash);
    expect(pending).toMatchObject({ status: 'pending_confirmations', attestation: 'PENDING', message: sent!.args.message, cctpVersion: 2 });

    await mine(BASE, FAST_CONFIRMATIONS);
    const m = await attested(receipt.transactionHash);
    // The wire: Circle's field names, decimal strings for numbers, hex for bytes.
    expect(Object.keys(m).sort()).toEqual(['attestation', 'cctpVersion', 'decodedMessage', 'eventNonce', 'message', 'status']);
    expect(m.message).toMatch(/^0x[0-9a-f]+$/);
    expect(m.attestation).toMatch(/^0x[0-9a-f]{130}$/);
    expect(m.eventNonce).toMatch(/^0x[0-9a-f]{64}$/);
    expect(m.eventNonce).not.toBe(zeroHash);
    expect(m.decodedMessage).toEqual({
      sourceDomain: '6',
      destinationDomain: '3',
      nonce: m.eventNonce,
      sender: MESSENGER,
      recipient: MESSENGER,
      destinationCaller: '0x0000000000000000000000000000000000000000',
      minFinalityThreshold: '1000',
      finalityThresholdExecuted: '1000',
      messageBody: decodeCctpMessage(m.message as Hex).messageBody,
      decodedMessageBody: {
        burnToken: USDC[BASE],
        mintRecipient: recipient,
        amount: amount.toString(),
        messageSender: user.address,
        maxFee: '100000',
        feeExecuted: fee.toString(),
        expirationBlock: '0',
        hookData: '0x',
      },
    });
    expect(await recoverAddress({ hash: keccak256(m.message as Hex), signature: m.attestation as Hex })).toBe(attester.attester);
    // Asked again, the same nonce and the same bytes: a client may poll as often as it likes.
    expect((await messagesOf(receipt.transactionHash))[0]).toEqual(m);

    const received = await write(ARBITRUM, relayer, TRANSMITTER, ERRORS_ABI, 'receiveMessage', [m.message, m.attestation]);
    expect(await balance(ARBITRUM, recipient)).toBe(amount - fee);
    expect(await balance(ARBITRUM, FEE_RECIPIENT)).toBe(fee);
    const [got] = parseEventLogs({ abi: CCTP_MESSAGE_TRANSMITTER_V2_ABI, eventName: 'MessageReceived', logs: received.logs });
    expect(got!.args).toMatchObject({ caller: relayer.address, sourceDomain: BASE, nonce: m.eventNonce, finalityThresholdExecuted: 1000 });
    expect(
      await clients[ARBITRUM]!.readContract({
        address: TRANSMITTER,
        abi: CCTP_MESSAGE_TRANSMITTER_V2_ABI,
        functionName: 'usedNonces',
        args: [m.eventNonce as Hex],
      }),
    ).toBe(1n);

    expect(await receiveReverts(m.message as Hex, m.attestation as Hex)).toBe('Nonce already used');
    expect(await balance(ARBITRUM, recipient)).toBe(amount - fee);
  });

  it('refuses an attestation by a key that is not an attester, and mints a Standard Transfer whole', async () => {
    const amount = 7_000_000n;
    const start = await balance(ARBITRUM, recipient);
    const receipt = await burn(amount, { maxFee: 5_000n, minFinality: 2000 });
    await mine(BASE, CONFIRMATIONS);
    const m = await attested(receipt.transactionHash);
    expect(m.decodedMessage.finalityThresholdExecuted).toBe('2000');
    expect(m.decodedMessage.decodedMessageBody?.feeExecuted).toBe('0');
    const forged = await sign({ hash: keccak256(m.message as Hex), privateKey: generatePrivateKey(), to: 'hex' });
    expect(await receiveReverts(m.message as Hex, forged)).toBe('Signature verification failed: signer is not enabled attester');
    expect(await receiveReverts(m.message as Hex, m.attestation.slice(0, -2) as Hex)).toBe('Invalid attestation length');

    await write(ARBITRUM, relayer, TRANSMITTER, ERRORS_ABI, 'receiveMessage', [m.message, m.attestation]);
    expect((await balance(ARBITRUM, recipient)) - start).toBe(amount);
  });

  it('refuses on arbitrum a message for another destination domain', async () => {
    const receipt = await burn(3_000_000n, { destination: CCTP_DOMAINS.ethereum });
    await mine(BASE, CONFIRMATIONS);
    const m = await attested(receipt.transactionHash);
    expect(m.decodedMessage.destinationDomain).toBe('0');
    expect(await receiveReverts(m.message as Hex, m.attestation as Hex)).toBe('Invalid destination domain');
  });

  it('attests a Fast Transfer whose maxFee is below the fee as a Standard one, after its confirmations', async () => {
    const receipt = await burn(50_000_000n, { maxFee: 0n, minFinality: 1000 });
    await mine(BASE, FAST_CONFIRMATIONS);
    const [early] = await messagesOf(receipt.transactionHash);
    expect(early).toMatchObject({ status: 'pending_confirmations', attestation: 'PENDING', delayReason: 'insufficient_fee' });
    await mine(BASE, CONFIRMATIONS - FAST_CONFIRMATIONS);
    const m = await attested(receipt.transactionHash);
    expect(m).toMatchObject({ delayReason: 'insufficient_fee' });
    expect(m.decodedMessage).toMatchObject({ minFinalityThreshold: '1000', finalityThresholdExecuted: '2000' });
    expect(m.decodedMessage.decodedMessageBody?.feeExecuted).toBe('0');
  });

  it('withholds the attestation of one burn, or of every burn, while told to, and counts what it withheld', async () => {
    const [one, other] = [await burn(2_000_000n), await burn(3_000_000n)];
    await mine(BASE, CONFIRMATIONS);
    const complete = async (tx: Hex) => (await messagesOf(tx))[0]!.status === 'complete';
    attester.withhold(one.transactionHash);
    const [held] = await messagesOf(one.transactionHash);
    expect(held).toMatchObject({ status: 'pending_confirmations', attestation: 'PENDING' });
    expect(await complete(other.transactionHash)).toBe(true);
    expect(attester.withheld(one.transactionHash)).toBe(1);

    attester.withhold();
    expect([await complete(one.transactionHash), await complete(other.transactionHash)]).toEqual([false, false]);
    expect([attester.withheld(one.transactionHash), attester.withheld(other.transactionHash), attester.withheld()]).toEqual([2, 1, 3]);

    attester.release();
    const [released] = await messagesOf(one.transactionHash);
    expect(released).toMatchObject({ status: 'complete' });
    expect(released!.attestation).toMatch(/^0x[0-9a-f]{130}$/);
    expect(await complete(other.transactionHash)).toBe(true);
    expect(attester.withheld()).toBe(3);
  });

  it('answers 404 for an unknown transaction or one without a message, and 400 for bad input', async () => {
    const unknown = await get(`/v2/messages/${BASE}?transactionHash=${keccak256('0x01')}`);
    expect(unknown).toEqual({ status: 404, type: 'application/json', body: { error: 'Message not found' } });
    // A mined transaction that sent no message: the approval before a burn.
    const approval = await write(BASE, user, USDC[BASE]!, TOKEN_ABI, 'approve', [MESSENGER, 1n]);
    expect((await get(`/v2/messages/${BASE}?transactionHash=${approval.transactionHash}`)).status).toBe(404);
    // The burn, asked of the wrong domain, was never sent there.
    const receipt = await burn(1_000_000n);
    expect((await get(`/v2/messages/${ARBITRUM}?transactionHash=${receipt.transactionHash}`)).status).toBe(404);

    for (const [path, error] of [
      [`/v2/messages/${BASE}?transactionHash=0x1234`, 'Invalid transactionHash'],
      [`/v2/messages/${BASE}?transactionHash=${receipt.transactionHash.slice(2)}`, 'Invalid transactionHash'],
      [`/v2/messages/base?transactionHash=${receipt.transactionHash}`, 'Invalid source domain'],
      [`/v2/messages/7?transactionHash=${receipt.transactionHash}`, 'Unsupported source domain 7'],
      [`/v2/messages/${BASE}`, 'transactionHash or nonce is required'],
    ] as const) {
      expect({ path, ...(await get(path)) }).toEqual({ path, status: 400, type: 'application/json', body: { error } });
    }
  });
  it('answers 503 when the source chain does not answer, and keeps serving', async () => {
    const errors: unknown[] = [];
    const down = await startAttester({
      domains: { [BASE]: { rpcUrl: 'http://127.0.0.1:1', messageTransmitter: TRANSMITTER, tokenMessenger: MESSENGER } },
      attesterKey: DEV_CCTP_ATTESTER_KEY,
      rpcTimeoutMs: 1_000,
      onError: (err) => errors.push(err),
    });
    try {
      const ask = async () => {
        const res = await fetch(`${down.url}/v2/messages/${BASE}?transactionHash=${keccak256('0x02')}`, {
          signal: AbortSignal.timeout(10_000),
        });
        return { status: res.status, body: (await res.json()) as unknown };
      };
      expect(await ask()).toEqual({ status: 503, body: { error: 'Source chain unavailable' } });
      expect(await ask()).toEqual({ status: 503, body: { error: 'Source chain unavailable' } });
      expect(errors).toHaveLength(2);
    } finally {
      await down.close();
    }
  });
});
