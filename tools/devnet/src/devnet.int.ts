import {
  CCTP_DOMAINS,
  CCTP_MESSAGE_TRANSMITTER_V2_ABI,
  CCTP_TOKEN_MESSENGER_V2_ABI,
  CCTP_V2_MESSAGE_TRANSMITTER,
  CCTP_V2_TOKEN_MESSENGER,
  CctpMessagesResponseSchema,
  addressToBytes32,
  decodeCctpBurnBody,
  decodeCctpMessage,
} from '@xchain/cctp';
import { DEV_CCTP_ATTESTER_KEY } from '@xchain/cctp-attester';
import { PERMIT2_ADDRESS, XCHAIN_ROUTER_ABI } from '@xchain/evm-gasless';
import { until } from '@xchain/stack';
import { type Address, type Hex, createPublicClient, createWalletClient, getAddress, http, parseAbi, zeroAddress, zeroHash } from 'viem';
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts';
import { DEV_CCTP_FEE_RECIPIENT, DEV_FEE_RECIPIENT, DEV_FILLER, DEV_FILLER_KEY, DEV_VOUCHER_SIGNER } from './dev-keys';
import { type ChainPlan, readDevnetPlan } from './devnet-plan';
import { DEV_RETENTION_SECS } from './equip-chain';
import { FUND_NATIVE_UNITS, FUND_TOKEN_UNITS, fund } from './fund';
import { type Devnet, startDevnet } from './start-devnet';

const TOKEN_ABI = parseAbi([
  'function decimals() view returns (uint8)',
  'function symbol() view returns (string)',
  'function name() view returns (string)',
  'function balanceOf(address) view returns (uint256)',
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
]);
const EXECUTOR_ABI = parseAbi([
  'function permit2() view returns (address)',
  'function router() view returns (address)',
  'function feeRecipient() view returns (address)',
]);
const VOUCHER_ABI = parseAbi(['function operator() view returns (address)']);
// The stand-in's own read of its token (Circle's TokenMessengerV2 names a minter instead).
const STANDIN_MESSENGER_ABI = parseAbi(['function localToken() view returns (address)']);
const CCTP_ATTESTER = privateKeyToAddress(DEV_CCTP_ATTESTER_KEY);

/**
 * The local chains as `npm start` and the end-to-end suites get them: real anvils with the
 * registry's chain ids, our contracts and the registry's tokens at the registry's addresses.
 */
describe('devnet', () => {
  let devnet: Devnet;
  const [ethPlan, basePlan] = readDevnetPlan(['ethereum', 'base']) as [ChainPlan, ChainPlan];
  const relayer = privateKeyToAddress('0x1111111111111111111111111111111111111111111111111111111111111111');
  const client = (chain: string) => createPublicClient({ transport: http(devnet.chains.get(chain)!.rpcUrl) });
  const token = (plan: ChainPlan, symbol: string) => plan.tokens.find((t) => t.symbol === symbol)!;

  beforeAll(async () => {
    devnet = await startDevnet({ chains: ['ethereum', 'base'], fund: [relayer] });
  }, 180_000);
  afterAll(async () => {
    await devnet?.stop();
  });

  it('serves each chain under its registry chain id', async () => {
    expect([...devnet.chains.keys()]).toEqual(['ethereum', 'base']);
    expect(await client('ethereum').getChainId()).toBe(1);
    expect(await client('base').getChainId()).toBe(8453);
    expect(devnet.rpcUrls).toBe(`ethereum=${devnet.chains.get('ethereum')!.rpcUrl},base=${devnet.chains.get('base')!.rpcUrl}`);
  });

  it('places Permit2, the router (refunder, settler and treasury: the filler, dev key #5, so claims refill its inventory (D20); 7 days of retention) and the gasless executor, wired to each other', async () => {
    for (const plan of [ethPlan, basePlan]) {
      const c = client(plan.name);
      expect((await c.getCode({ address: PERMIT2_ADDRESS }))?.length).toBeGreaterThan(2);
      expect((await c.getCode({ address: plan.depositTarget }))?.length).toBeGreaterThan(2);
      const at = plan.gaslessExecutor!;
      expect(await c.readContract({ address: at, abi: EXECUTOR_ABI, functionName: 'permit2' })).toBe(getAddress(PERMIT2_ADDRESS));
      expect(await c.readContract({ address: at, abi: EXECUTOR_ABI, functionName: 'router' })).toBe(plan.depositTarget);
      expect(await c.readContract({ address: at, abi: EXECUTOR_ABI, functionName: 'feeRecipient' })).toBe(DEV_FEE_RECIPIENT);
      const router = (functionName: 'refunder' | 'settler' | 'treasury' | 'retention') =>
        c.readContract({ address: plan.depositTarget, abi: XCHAIN_ROUTER_ABI, functionName });
      expect([await router('refunder'), await router('settler'), await router('treasury'), await router('retention')]).toEqual([
        DEV_FILLER,
        DEV_FILLER,
        DEV_FILLER,
        604_800n,
      ]);
    }
    expect(devnet.feeRecipient).toBe(DEV_FEE_RECIPIENT);
    expect([devnet.refunder, devnet.settler, devnet.treasury, devnet.retentionSecs]).toEqual([
      DEV_FILLER,
      DEV_FILLER,
      DEV_FILLER,
      DEV_RETENTION_SECS,
    ]);
    // The published key behind the address: anvil's account #5.
    expect(privateKeyToAddress(DEV_FILLER_KEY)).toBe(DEV_FILLER);
  });

  it("puts USDC at base's registry address with Circle's decimals and permit domain", async () => {
    const usdc = token(basePlan, 'USDC').address;
    expect(usdc).toBe('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
    const c = client('base');
    expect(await c.readContract({ address: usdc, abi: TOKEN_ABI, functionName: 'decimals' })).toBe(6);
    expect(await c.readContract({ address: usdc, abi: TOKEN_ABI, functionName: 'symbol' })).toBe('USDC');
    const [, name, version, chainId, verifyingContract] = await c.readContract({
      address: usdc,
      abi: TOKEN_ABI,
      functionName: 'eip712Domain',
    });
    expect({ name, version, chainId, verifyingContract }).toEqual({
      name: 'USD Coin',
      version: '2',
      chainId: 8453n,
      verifyingContract: usdc,
    });
  });

  it('puts a non-permit token at its registry address with its registry decimals', async () => {
    const usdt = token(ethPlan, 'USDT');
    const weth = token(ethPlan, 'WETH');
    expect([usdt.permitVersion, weth.permitVersion]).toEqual([undefined, undefined]);
    const c = client('ethereum');
    expect(await c.readContract({ address: usdt.address, abi: TOKEN_ABI, functionName: 'decimals' })).toBe(6);
    expect(await c.readContract({ address: weth.address, abi: TOKEN_ABI, functionName: 'decimals' })).toBe(18);
    expect(await c.readContract({ address: weth.address, abi: TOKEN_ABI, functionName: 'symbol' })).toBe('WETH');
  });

  it('places the partner routers: funding on base, vouchers signed by the dev voucher key', async () => {
    expect(DEV_VOUCHER_SIGNER).toBe(privateKeyToAddress('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'));
    expect((await client('base').getCode({ address: basePlan.fundingRouter! }))?.length).toBeGreaterThan(2);
    expect(ethPlan.fundingRouter).toBeUndefined();
    for (const plan of [ethPlan, basePlan]) {
      expect(await client(plan.name).readContract({ address: plan.voucherRouter!, abi: VOUCHER_ABI, functionName: 'operator' })).toBe(
        DEV_VOUCHER_SIGNER,
      );
    }
  });

  it("places the CCTP V2 stand-ins at Circle's mainnet addresses: each chain's domain, the dev attester, its USDC", async () => {
    for (const plan of [ethPlan, basePlan]) {
      const c = client(plan.name);
      const transmitter = (functionName: 'localDomain' | 'version') =>
        c.readContract({ address: CCTP_V2_MESSAGE_TRANSMITTER, abi: CCTP_MESSAGE_TRANSMITTER_V2_ABI, functionName });
      const messenger = (functionName: 'localMessageTransmitter' | 'feeRecipient' | 'messageBodyVersion') =>
        c.readContract({ address: CCTP_V2_TOKEN_MESSENGER, abi: CCTP_TOKEN_MESSENGER_V2_ABI, functionName });
      expect([plan.name, await transmitter('localDomain'), await transmitter('version')]).toEqual([
        plan.name,
        CCTP_DOMAINS[plan.name as 'ethereum' | 'base'],
        1,
      ]);
      const enabled = (attester: Address) =>
        c.readContract({
          address: CCTP_V2_MESSAGE_TRANSMITTER,
          abi: CCTP_MESSAGE_TRANSMITTER_V2_ABI,
          functionName: 'isEnabledAttester',
          args: [attester],
        });
      expect([await enabled(CCTP_ATTESTER), await enabled(DEV_FILLER)]).toEqual([true, false]);
      expect(await messenger('localMessageTransmitter')).toBe(CCTP_V2_MESSAGE_TRANSMITTER);
      expect(await messenger('feeRecipient')).toBe(DEV_CCTP_FEE_RECIPIENT);
      expect(await c.readContract({ address: CCTP_V2_TOKEN_MESSENGER, abi: STANDIN_MESSENGER_ABI, functionName: 'localToken' })).toBe(
        token(plan, 'USDC').address,
      );
    }
    // Account #3, the published key behind the fee recipient.
    expect(DEV_CCTP_FEE_RECIPIENT).toBe(privateKeyToAddress('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6'));
  });

  it('serves CCTP attestations for its chains on loopback, and says so for a domain it does not run', async () => {
    expect(devnet.attestationUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ask = (domain: number) =>
      fetch(`${devnet.attestationUrl}/v2/messages/${domain}?transactionHash=${zeroHash}`, { signal: AbortSignal.timeout(10_000) });
    expect((await ask(CCTP_DOMAINS.base)).status).toBe(404); // a domain it watches, a transaction it never saw
    expect(await (await ask(CCTP_DOMAINS.arbitrum)).json()).toEqual({ error: 'Unsupported source domain 3' });
  });

  it('gives the relayer wallets native gas', async () => {
    for (const chain of ['ethereum', 'base']) expect(await client(chain).getBalance({ address: relayer })).toBe(100n * 10n ** 18n);
  });

  it('funds an address with native gas and 1,000,000 whole units of every token on every chain', async () => {
    const who: Address = privateKeyToAddress('0x2222222222222222222222222222222222222222222222222222222222222222');
    const report = await fund(devnet.rpcUrls, who);
    expect(report.chains.map((c) => c.chain)).toEqual(['ethereum', 'base']);
    let checked = 0;
    for (const plan of [ethPlan, basePlan]) {
      const c = client(plan.name);
      expect(await c.getBalance({ address: who })).toBe(FUND_NATIVE_UNITS * 10n ** 18n);
      expect(plan.tokens.length).toBeGreaterThan(1);
      for (const t of plan.tokens) {
        expect(t.address).not.toBe(zeroAddress);
        const balance = await c.readContract({ address: t.address, abi: TOKEN_ABI, functionName: 'balanceOf', args: [who] });
        expect([plan.name, t.symbol, balance]).toEqual([plan.name, t.symbol, FUND_TOKEN_UNITS * 10n ** BigInt(t.decimals)]);
        checked++;
      }
    }
    expect(checked).toBe(ethPlan.tokens.length + basePlan.tokens.length);
    // Funding again adds rather than resets.
    await fund(devnet.rpcUrls, who);
    expect(await client('base').getBalance({ address: who })).toBe(2n * FUND_NATIVE_UNITS * 10n ** 18n);
  });

  it('stop() ends every anvil and the attester', async () => {
    const procs = [...devnet.chains.values()].map((c) => c.proc.child);
    await devnet.stop();
    for (const child of procs) expect(child.exitCode !== null || child.signalCode !== null).toBe(true);
    await expect(client('ethereum').getChainId()).rejects.toThrow();
    await expect(
      fetch(`${devnet.attestationUrl}/v2/messages/6?transactionHash=${zeroHash}`, { signal: AbortSignal.timeout(5_000) }),
    ).rejects.toThrow();
  });
});

describe('devnet with a block time and a retention of its own', () => {
  it('mines on the clock once set up, funding still lands, and the router takes the retention given', async () => {
    const devnet = await startDevnet({ chains: ['arbitrum'], blockTimeSecs: 1, retentionSecs: 3600 });
    try {
      const c = createPublicClient({ transport: http(devnet.chains.get('arbitrum')!.rpcUrl) });
      const [arbPlan] = readDevnetPlan(['arbitrum']) as [ChainPlan];
      expect(await c.readContract({ address: arbPlan.depositTarget, abi: XCHAIN_ROUTER_ABI, functionName: 'retention' })).toBe(3600n);
      expect(devnet.retentionSecs).toBe(3600);
      const first = await c.getBlockNumber({ cacheTime: 0 });
      await until('a new block', async () => (await c.getBlockNumber({ cacheTime: 0 })) !== first, {
        timeoutMs: 10_000,
        everyMs: 200,
        failOnError: true,
      });
      expect(await c.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(first);
      const who = privateKeyToAddress('0x3333333333333333333333333333333333333333333333333333333333333333');
      const [arb] = (await fund(devnet.rpcUrls, who)).chains;
      const usdc = arb!.tokens.find((t) => t.symbol === 'USDC')!;
      expect(await c.readContract({ address: usdc.address, abi: TOKEN_ABI, functionName: 'balanceOf', args: [who] })).toBe(
        1_000_000n * 10n ** 6n,
      );
    } finally {
      await devnet.stop();
    }
  }, 60_000);
});

/**
 * The whole local CCTP loop as `npm start` has it (a block a second): USDC burned on base towards
 * arbitrum through the TokenMessengerV2 stand-in, the attestation fetched from the devnet's
 * attester as a client fetches Circle's, and the message received on arbitrum, which mints.
 */
describe('devnet CCTP: base → arbitrum', () => {
  let devnet: Devnet;
  const [basePlan, arbPlan] = readDevnetPlan(['base', 'arbitrum']) as [ChainPlan, ChainPlan];
  const usdc = (plan: ChainPlan) => plan.tokens.find((t) => t.symbol === 'USDC')!.address;
  const sender = privateKeyToAccount(generatePrivateKey());
  const recipient = privateKeyToAddress(generatePrivateKey());
  const ERC20_ABI = parseAbi([
    'function approve(address spender, uint256 amount) returns (bool)',
    'function balanceOf(address) view returns (uint256)',
  ]);
  const rpc = (plan: ChainPlan) => http(devnet.chains.get(plan.name)!.rpcUrl, { timeout: 10_000 });
  const reader = (plan: ChainPlan) => createPublicClient({ transport: rpc(plan), pollingInterval: 200 });
  const balance = (plan: ChainPlan, of: Address) =>
    reader(plan).readContract({ address: usdc(plan), abi: ERC20_ABI, functionName: 'balanceOf', args: [of] });
  const send = async (
    plan: ChainPlan,
    request: Omit<Parameters<ReturnType<typeof createWalletClient>['writeContract']>[0], 'account' | 'chain'>,
  ) => {
    const wallet = createWalletClient({ account: sender, transport: rpc(plan) });
    const hash = await wallet.writeContract({ ...request, account: sender, chain: null } as Parameters<typeof wallet.writeContract>[0]);
    const receipt = await reader(plan).waitForTransactionReceipt({ hash, timeout: 20_000 });
    expect(receipt.status).toBe('success');
    return receipt;
  };

  beforeAll(async () => {
    devnet = await startDevnet({ chains: ['base', 'arbitrum'], blockTimeSecs: 1 });
    await fund(devnet.rpcUrls, sender.address); // gas and 1,000,000 USDC on both chains
  }, 180_000);
  afterAll(async () => {
    await devnet?.stop();
  });

  it('burns on base, is attested by the devnet attester, and mints amount − fast fee on arbitrum', async () => {
    const amount = 250_000_000n; // 250 USDC
    const fee = amount / 10_000n; // the attester's Fast Transfer fee: 1 bp, rounded down
    const start = await balance(basePlan, sender.address);
    await send(basePlan, { address: usdc(basePlan), abi: ERC20_ABI, functionName: 'approve', args: [CCTP_V2_TOKEN_MESSENGER, amount] });
    const burn = await send(basePlan, {
      address: CCTP_V2_TOKEN_MESSENGER,
      abi: CCTP_TOKEN_MESSENGER_V2_ABI,
      functionName: 'depositForBurn',
      args: [amount, CCTP_DOMAINS.arbitrum, addressToBytes32(recipient), usdc(basePlan), zeroHash, 100_000n, 1000],
    });
    expect(await balance(basePlan, sender.address)).toBe(start - amount);

    const url = `${devnet.attestationUrl}/v2/messages/${CCTP_DOMAINS.base}?transactionHash=${burn.transactionHash}`;
    const m = await until(
      'the attestation of the burn',
      async () => {
        const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
        if (res.status !== 200) return undefined;
        const [first] = CctpMessagesResponseSchema.parse(await res.json()).messages;
        return first?.status === 'complete' ? first : undefined;
      },
      { timeoutMs: 20_000, everyMs: 250 },
    );
    const message = decodeCctpMessage(m.message as Hex);
    expect(message).toMatchObject({ sourceDomain: 6, destinationDomain: 3, finalityThresholdExecuted: 1000 });
    expect(decodeCctpBurnBody(message.messageBody)).toMatchObject({ mintRecipient: addressToBytes32(recipient), amount, feeExecuted: fee });

    await send(arbPlan, {
      address: CCTP_V2_MESSAGE_TRANSMITTER,
      abi: CCTP_MESSAGE_TRANSMITTER_V2_ABI,
      functionName: 'receiveMessage',
      args: [m.message as Hex, m.attestation as Hex],
    });
    expect(await balance(arbPlan, recipient)).toBe(amount - fee);
    expect(await balance(arbPlan, DEV_CCTP_FEE_RECIPIENT)).toBe(fee);
    expect(
      await reader(arbPlan).readContract({
        address: CCTP_V2_MESSAGE_TRANSMITTER,
        abi: CCTP_MESSAGE_TRANSMITTER_V2_ABI,
        functionName: 'usedNonces',
        args: [m.eventNonce as Hex],
      }),
    ).toBe(1n);
  }, 60_000);
});
