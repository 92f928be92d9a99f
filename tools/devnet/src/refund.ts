import { XCHAIN_ROUTER_ABI, refundTx } from '@xchain/evm-gasless';
import { type Address, type Hex, createPublicClient, createWalletClient, getAddress, http, parseEventLogs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEV_REFUNDER_KEY } from './dev-keys';
import { readDevnetPlan } from './devnet-plan';
import { findOpenedOrder, revertReason } from './filler/order-logs';

export interface RefundOptions {
  /** chain → RPC URL of the running local chains. */
  rpcUrls: ReadonlyMap<string, string>;
  /** The order's source chain, where it was deposited. */
  chain: string;
  quoteHash: Hex;
  /** Default DEV_REFUNDER_KEY (anvil account #4), the refunder every devnet router is deployed with. */
  refunderKey?: Hex;
  registryFile?: string;
  partnersFile?: string;
}

export interface RefundReport {
  quote_hash: Hex;
  chain: string;
  tx_hash: Hex;
  refund_address: Address;
  token: Address;
  /** Source base units, decimal. */
  amount: string;
  /** What was checked on the destination chain before refunding. */
  destination: string;
}

/**
 * `devnet refund <quote_hash> --chain <name>`: the operator's refund on the local chains. Finds the
 * order in the router's OrderOpened log on its source chain, makes sure it was not filled on its
 * destination (the router cannot see another chain, so the refunder must), and calls `refund`
 * from the refunder key, which sends the deposit back to the order's refund address. Throws, with
 * the reason, when there is nothing to refund or the router would refuse.
 */
export async function refundOrder(opts: RefundOptions): Promise<RefundReport> {
  const url = opts.rpcUrls.get(opts.chain);
  if (!url) throw new Error(`${opts.chain} is not a running local chain (running: ${[...opts.rpcUrls.keys()].join(', ') || 'none'})`);
  const plans = readDevnetPlan([...opts.rpcUrls.keys()], opts.registryFile, opts.partnersFile);
  const src = plans.find((p) => p.name === opts.chain)!;
  const client = createPublicClient({ transport: http(url, { timeout: 10_000 }), pollingInterval: 250 });
  const opened = await findOpenedOrder(client, src.depositTarget, opts.quoteHash);
  if (!opened) throw new Error(`no order ${opts.quoteHash} was deposited on ${opts.chain} (no OrderOpened on its router ${src.depositTarget})`);
  const { order } = opened;

  const destination = await checkDestination(opts, plans, order.dstChainId, src.chainId);

  const account = privateKeyToAccount(opts.refunderKey ?? DEV_REFUNDER_KEY);
  const tx = refundTx(order, src.depositTarget);
  try {
    await client.call({ account, to: tx.to, data: tx.data });
  } catch (err) {
    throw new Error(`the router refuses to refund ${opts.quoteHash}: ${revertReason(err).text}`);
  }
  const wallet = createWalletClient({ account, transport: http(url, { timeout: 10_000 }) });
  const hash = await wallet.sendTransaction({ to: tx.to, data: tx.data, chain: null });
  const receipt = await client.waitForTransactionReceipt({ hash, timeout: 30_000 });
  if (receipt.status !== 'success') throw new Error(`the refund transaction ${hash} reverted`);
  const [refunded] = parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs: receipt.logs, eventName: 'Refunded' });
  if (!refunded) throw new Error(`the refund transaction ${hash} emitted no Refunded event`);
  return {
    quote_hash: opts.quoteHash,
    chain: opts.chain,
    tx_hash: hash,
    refund_address: getAddress(refunded.args.to),
    token: getAddress(refunded.args.token),
    amount: refunded.args.amount.toString(),
    destination,
  };
}

/** Refuses an order already filled on a local destination; says what it could not check. */
async function checkDestination(opts: RefundOptions, plans: ReturnType<typeof readDevnetPlan>, dstChainId: bigint, srcChainId: number): Promise<string> {
  if (dstChainId === BigInt(srcChainId)) return 'same chain: the router itself refuses a filled order';
  const dst = plans.find((p) => BigInt(p.chainId) === dstChainId);
  const dstUrl = dst && opts.rpcUrls.get(dst.name);
  if (!dst || !dstUrl) return `chain id ${dstChainId} is not a running local chain: its fill was not checked`;
  const client = createPublicClient({ transport: http(dstUrl, { timeout: 10_000 }) });
  const filled = await client.readContract({ address: dst.depositTarget, abi: XCHAIN_ROUTER_ABI, functionName: 'filled', args: [opts.quoteHash] });
  if (filled) throw new Error(`${opts.quoteHash} was already filled on ${dst.name}: it cannot be refunded`);
  return `not filled on ${dst.name}`;
}
