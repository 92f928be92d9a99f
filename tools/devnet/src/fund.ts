import { ANVIL_DEV_KEY } from '@xchain/chain-tools';
import { parseRpcUrls } from '@xchain/chain-watch';
import { type Address, type Hex, createPublicClient, createTestClient, createWalletClient, getAddress, http, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type ChainPlan, readDevnetPlan } from './devnet-plan';

/** What `fund` gives: enough to try every flow by hand, far from any overflow. */
export const FUND_NATIVE_UNITS = 100n;
export const FUND_TOKEN_UNITS = 1_000_000n;

const MINT_ABI = parseAbi(['function mint(address to, uint256 amount)']);

export interface FundReport {
  address: Address;
  chains: {
    chain: string;
    chainId: number;
    /** Native base units added. */
    native: string;
    tokens: { symbol: string; address: Address; amount: string }[];
  }[];
}

export interface FundOptions {
  registryFile?: string;
  partnersFile?: string;
}

/**
 * Gives `address`, on every local chain of `rpcUrls` (`chain=url,…`), 100 native units
 * (anvil_setBalance, added to what it holds) and 1,000,000 whole units of every registry token
 * of that chain (the dev tokens' open mint). Only for the devnet's anvils: it needs both.
 */
export async function fund(rpcUrls: string, address: Address, opts: FundOptions = {}): Promise<FundReport> {
  const urls = parseRpcUrls(rpcUrls);
  const to = getAddress(address);
  const plans = readDevnetPlan([...urls.keys()], opts.registryFile, opts.partnersFile);
  const chains = await Promise.all(plans.map((plan) => serialized(urls.get(plan.name)!, () => fundChain(urls.get(plan.name)!, plan, to))));
  return { address: to, chains };
}

async function fundChain(rpcUrl: string, plan: ChainPlan, to: Address): Promise<FundReport['chains'][number]> {
  const transport = http(rpcUrl);
  // viem polls receipts every 4 s by default; a local block comes within a second.
  const client = createPublicClient({ transport, pollingInterval: 200 });
  const native = FUND_NATIVE_UNITS * 10n ** BigInt(plan.nativeDecimals);
  const held = await client.getBalance({ address: to });
  await createTestClient({ mode: 'anvil', transport }).setBalance({ address: to, value: held + native });
  // One nonce counted here rather than asked per send: the mints go out back to back and are mined
  // together, which matters when the chain mines on an interval.
  const account = privateKeyToAccount(ANVIL_DEV_KEY);
  const wallet = createWalletClient({ account, transport });
  let nonce = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const tokens: FundReport['chains'][number]['tokens'] = [];
  const sent: Hex[] = [];
  for (const token of plan.tokens) {
    const amount = FUND_TOKEN_UNITS * 10n ** BigInt(token.decimals);
    sent.push(
      await wallet.writeContract({
        address: token.address,
        abi: MINT_ABI,
        functionName: 'mint',
        args: [to, amount],
        chain: null,
        nonce: nonce++,
      }),
    );
    tokens.push({ symbol: token.symbol, address: token.address, amount: amount.toString() });
  }
  for (const hash of sent) {
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`minting on ${plan.name} failed (${hash}): is this the devnet's anvil?`);
  }
  return { chain: plan.name, chainId: plan.chainId, native: native.toString(), tokens };
}

// The mints of two calls on one node would count the same nonces: run them one after another.
const queues = new Map<string, Promise<unknown>>();

async function serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
  const run = (queues.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
  queues.set(key, run);
  try {
    return await run;
  } finally {
    if (queues.get(key) === run) queues.delete(key);
  }
}
