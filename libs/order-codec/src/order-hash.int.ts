import { ANVIL_DEV_KEY, type Anvil, compileContracts, startAnvil } from '@xchain/chain-tools';
import { ROOT } from '@xchain/stack';
import { type Hex, createPublicClient, createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { hashOrder, hashReferrers, toBytes32 } from './order';
import { sampleOrder } from './testing';

describe('the on-chain order hash equals the off-chain one', () => {
  let anvil: Anvil;
  let address: Hex;
  let abi: ReturnType<typeof compileContracts>[string]['abi'];
  let client: ReturnType<typeof createPublicClient>;

  beforeAll(async () => {
    const compiled = compileContracts(['contracts/test/OrderHashHarness.sol'], ROOT)['OrderHashHarness']!;
    abi = compiled.abi;
    anvil = await startAnvil(1338);
    const account = privateKeyToAccount(ANVIL_DEV_KEY);
    const wallet = createWalletClient({ account, transport: http(anvil.rpcUrl) });
    client = createPublicClient({ transport: http(anvil.rpcUrl) });
    const tx = await wallet.deployContract({ abi, bytecode: compiled.bytecode, chain: null });
    const receipt = await client.waitForTransactionReceipt({ hash: tx });
    address = receipt.contractAddress!;
  }, 60_000);

  afterAll(async () => {
    await anvil?.proc.stop();
  });

  it('hashes orders to the same value on chain, Solana addresses and referrers included', async () => {
    const referrers = [
      { account: toBytes32('evm', '0x1111111111111111111111111111111111111111'), bps: 25 },
      { account: toBytes32('svm', 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN'), bps: 5 },
    ];
    const onChainReferrers = await client.readContract({ address, abi, functionName: 'hashReferrers', args: [referrers] });
    expect(onChainReferrers).toBe(hashReferrers(referrers));
    for (const order of [
      sampleOrder(),
      sampleOrder({ gasless: true, sponsorFees: true, sponsorGas: 2_100_000n, referrersHash: hashReferrers(referrers) }),
      sampleOrder({ amountIn: (1n << 256n) - 1n, tradeType: 4 }),
    ]) {
      const onChain = await client.readContract({ address, abi, functionName: 'hashOrder', args: [order] });
      expect(onChain).toBe(hashOrder(order));
    }
  });
});
