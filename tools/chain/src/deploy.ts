import { ROOT } from '@xchain/stack';
import { type Address, type Hex, createPublicClient, createTestClient, createWalletClient, getAddress, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type CompiledContract, compileContracts } from './compile';

/** Every contract the local chains and the chain tests deploy, compiled together. */
const XCHAIN_SOURCES = [
  'contracts/src/XchainRouter.sol',
  'contracts/src/GaslessExecutor.sol',
  'contracts/test/DevTokens.sol',
  'contracts/test/PartnerRoutersHarness.sol',
  'contracts/test/CallTargets.sol',
  'contracts/test/CctpStandins.sol',
];

let compiled: Record<string, CompiledContract> | undefined;

/** XchainRouter, GaslessExecutor, DevToken, DevPermitToken, the partner harness and the destination-call targets (DevVault, DevReverter) and the CCTP V2 stand-ins, by name (solc runs once per process). */
export function compileXchainContracts(): Record<string, CompiledContract> {
  compiled ??= compileContracts(XCHAIN_SOURCES, ROOT);
  return compiled;
}

export interface DeployOptions {
  rpcUrl: string;
  deployerKey: Hex;
  contract: CompiledContract;
  args?: unknown[];
  /** Place the deployed runtime code (immutables included) at this address instead. */
  at?: Address;
}

// Deploys from one key to one node run one after another: concurrent sends would read the same
// pending nonce. Keyed by node as well, because two anvils may share a chain id and an account.
const queues = new Map<string, Promise<unknown>>();

/**
 * Deploys a compiled contract with viem and returns its address. With `at`, copies the runtime
 * code it deployed (eth_getCode, so immutables come along; storage does not) to `at` with
 * `anvil_setCode` and returns `at`: that is how the local chains put contracts at registry addresses.
 */
export async function deployContract(opts: DeployOptions): Promise<Address> {
  const account = privateKeyToAccount(opts.deployerKey);
  const key = `${opts.rpcUrl} ${account.address}`;
  const previous = queues.get(key) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(() => deployNow(opts));
  queues.set(key, run);
  try {
    return await run;
  } finally {
    if (queues.get(key) === run) queues.delete(key);
  }
}

async function deployNow({ rpcUrl, deployerKey, contract, args = [], at }: DeployOptions): Promise<Address> {
  const account = privateKeyToAccount(deployerKey);
  const transport = http(rpcUrl);
  const wallet = createWalletClient({ account, transport });
  // Local nodes mine at once: poll fast, so no receipt watcher outlives the caller.
  const client = createPublicClient({ transport, pollingInterval: 100 });
  const hash = await wallet.deployContract({ abi: contract.abi, bytecode: contract.bytecode, args, chain: null });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deployment ${hash} failed`);
  if (!at) return receipt.contractAddress;
  const code = await client.getCode({ address: receipt.contractAddress });
  if (!code || code === '0x') throw new Error(`no code at ${receipt.contractAddress} after deployment ${hash}`);
  await createTestClient({ mode: 'anvil', transport }).setCode({ address: at, bytecode: code });
  return getAddress(at);
}
