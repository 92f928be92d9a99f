import { ANVIL_DEV_KEY, type Anvil, compileContracts, startAnvil } from '@xchain/chain-tools';
import { ROOT } from '@xchain/stack';
import { type Address, type Hex, createPublicClient, createWalletClient, http, pad, parseEventLogs, zeroAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts';
import { PARTNER_FUNDING_ROUTER_ABI, buildFundingCall } from './funding';
import { REFERRAL_VOUCHER_ROUTER_ABI, type VoucherStruct, encodeVoucherRedemption, signVoucher, voucherDigest } from './voucher';

const CHAIN_ID = 1341;
/** An address as a voucher's bytes32 (left-padded, lowercase hex as the partner-service writes it). */
const b32 = (a: Address): Hex => pad(a.toLowerCase() as Hex);

/** The calldata and signatures this lib builds, run against reference routers on a real EVM. */
describe('funding and voucher calls on anvil', () => {
  let anvil: Anvil;
  const account = privateKeyToAccount(ANVIL_DEV_KEY);
  const operatorKey = generatePrivateKey();
  let client: ReturnType<typeof createPublicClient>;
  let wallet: ReturnType<typeof createWalletClient>;
  let compiled: ReturnType<typeof compileContracts>;
  const addr = { token: zeroAddress as Address, funding: zeroAddress as Address, vouchers: zeroAddress as Address };

  const deploy = async (name: string, args: unknown[] = []): Promise<Address> => {
    const c = compiled[name]!;
    const hash = await wallet.deployContract({ abi: c.abi, bytecode: c.bytecode, args, account, chain: null });
    return (await client.waitForTransactionReceipt({ hash })).contractAddress!;
  };
  const send = async (to: Address, data: Hex, value = 0n) => {
    const hash = await wallet.sendTransaction({ to, data, value, account, chain: null });
    return client.waitForTransactionReceipt({ hash });
  };
  const balanceOf = (who: Address) =>
    client.readContract({
      address: addr.token,
      abi: compiled['TestToken']!.abi,
      functionName: 'balanceOf',
      args: [who],
    }) as Promise<bigint>;
  const tokenCall = (functionName: string, args: unknown[]) =>
    wallet.writeContract({ address: addr.token, abi: compiled['TestToken']!.abi, functionName, args, account, chain: null });

  beforeAll(async () => {
    compiled = compileContracts(['contracts/test/PartnerRoutersHarness.sol'], ROOT);
    anvil = await startAnvil(CHAIN_ID);
    client = createPublicClient({ transport: http(anvil.rpcUrl) });
    wallet = createWalletClient({ transport: http(anvil.rpcUrl) });
    addr.token = await deploy('TestToken');
    addr.funding = await deploy('FundingRouterHarness');
    addr.vouchers = await deploy('VoucherRouterHarness', [privateKeyToAddress(operatorKey)]);
  }, 60_000);

  afterAll(async () => {
    await anvil?.proc.stop();
  });

  it('funds with the native asset and with a token; the Funded event carries the funding id', async () => {
    const native = buildFundingCall({ fundingId: pad('0x01'), token: zeroAddress, amount: 10n ** 15n });
    const r1 = await send(addr.funding, native.calldata, native.value);
    const [e1] = parseEventLogs({ abi: PARTNER_FUNDING_ROUTER_ABI, logs: r1.logs, eventName: 'Funded' });
    expect(e1!.args).toEqual({ fundingId: pad('0x01'), token: zeroAddress, from: account.address, amount: 10n ** 15n });
    expect(await client.getBalance({ address: addr.funding })).toBe(10n ** 15n);

    await client.waitForTransactionReceipt({ hash: await tokenCall('mint', [account.address, 5_000_000n]) });
    await client.waitForTransactionReceipt({ hash: await tokenCall('approve', [addr.funding, 5_000_000n]) });
    const erc20 = buildFundingCall({ fundingId: pad('0x02'), token: addr.token, amount: 5_000_000n });
    expect(erc20.value).toBe(0n);
    const r2 = await send(addr.funding, erc20.calldata);
    expect(parseEventLogs({ abi: PARTNER_FUNDING_ROUTER_ABI, logs: r2.logs, eventName: 'Funded' })[0]!.args.fundingId).toBe(pad('0x02'));
    expect(await balanceOf(addr.funding)).toBe(5_000_000n);
  });

  it('redeems a signed voucher once, pays the referrer, and refuses a tampered or foreign one', async () => {
    const referrer = privateKeyToAddress(generatePrivateKey());
    await client.waitForTransactionReceipt({ hash: await tokenCall('mint', [addr.vouchers, 10_000_000n]) });
    const v: VoucherStruct = {
      id: pad('0xabc1'),
      chainId: BigInt(CHAIN_ID),
      router: b32(addr.vouchers),
      token: b32(addr.token),
      referrer: b32(referrer),
      amount: 1_233_333n,
    };
    expect(
      await client.readContract({ address: addr.vouchers, abi: compiled['VoucherRouterHarness']!.abi, functionName: 'digest', args: [v] }),
    ).toBe(voucherDigest(v));
    const signature = await signVoucher(v, operatorKey);
    const receipt = await send(addr.vouchers, encodeVoucherRedemption(v, signature));
    expect(parseEventLogs({ abi: REFERRAL_VOUCHER_ROUTER_ABI, logs: receipt.logs, eventName: 'VoucherRedeemed' })[0]!.args).toEqual({
      id: v.id,
      referrer: v.referrer,
      token: v.token,
      amount: v.amount,
    });
    expect(await balanceOf(referrer)).toBe(1_233_333n);
    expect(
      await client.readContract({ address: addr.vouchers, abi: REFERRAL_VOUCHER_ROUTER_ABI, functionName: 'redeemed', args: [v.id] }),
    ).toBe(true);

    await expect(send(addr.vouchers, encodeVoucherRedemption(v, signature))).rejects.toThrow(/already redeemed/);
    const more = { ...v, id: pad('0xabc2') };
    await expect(
      send(addr.vouchers, encodeVoucherRedemption({ ...more, amount: 9_000_000n }, await signVoucher(more, operatorKey))),
    ).rejects.toThrow(/operator/);
    await expect(send(addr.vouchers, encodeVoucherRedemption(more, await signVoucher(more, generatePrivateKey())))).rejects.toThrow(
      /operator/,
    );
    const elsewhere = { ...more, chainId: 1n };
    await expect(send(addr.vouchers, encodeVoucherRedemption(elsewhere, await signVoucher(elsewhere, operatorKey)))).rejects.toThrow(
      /wrong chain/,
    );
  });
});
