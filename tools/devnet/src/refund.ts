import { XCHAIN_ROUTER_ABI, cancelTx, refundTx } from '@xchain/evm-gasless';
import type { Order } from '@xchain/order-codec';
import { type Address, type Hex, type PublicClient, createPublicClient, createWalletClient, getAddress, http, parseEventLogs } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { DEV_FILLER_KEY } from './dev-keys';
import { readDevnetPlan } from './devnet-plan';
import { findOpenedOrder, revertReason } from './filler/order-logs';

export interface RefundOptions {
  /** chain → RPC URL of the running local chains. */
  rpcUrls: ReadonlyMap<string, string>;
  /** The order's source chain, where it was deposited. */
  chain: string;
  quoteHash: Hex;
  /** Default DEV_FILLER_KEY (anvil account #5), the refunder every devnet router is deployed with. */
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
  /** What was done on the destination chain before refunding. */
  destination: string;
  /** The cancel on a local destination chain, when there was one. */
  cancel_tx_hash?: Hex;
}

/**
 * `devnet refund <quote_hash> --chain <name>`: the operator's refund on the local chains. Finds the
 * order in the router's OrderOpened log on its source chain, makes sure the source router would
 * refund it, then, when its destination is another local chain, refuses it if filled there and
 * cancels it there (the source router cannot see another chain; once cancelled no fill can land),
 * and calls `refund` from the refunder key, which sends the deposit back to the order's refund
 * address. Throws, with the reason, when there is nothing to refund or a router would refuse.
 */
export async function refundOrder(opts: RefundOptions): Promise<RefundReport> {
  const url = opts.rpcUrls.get(opts.chain);
  if (!url) throw new Error(`${opts.chain} is not a running local chain (running: ${[...opts.rpcUrls.keys()].join(', ') || 'none'})`);
  const plans = readDevnetPlan([...opts.rpcUrls.keys()], opts.registryFile, opts.partnersFile);
  const src = plans.find((p) => p.name === opts.chain)!;
  const client = createPublicClient({ transport: http(url, { timeout: 10_000 }), pollingInterval: 250 });
  const opened = await findOpenedOrder(client, src.depositTarget, opts.quoteHash);
  if (!opened)
    throw new Error(`no order ${opts.quoteHash} was deposited on ${opts.chain} (no OrderOpened on its router ${src.depositTarget})`);
  const { order } = opened;

  const account = privateKeyToAccount(opts.refunderKey ?? DEV_FILLER_KEY);
  const tx = refundTx(order, src.depositTarget);
  // Asked first, so an order the source would not refund (already refunded or claimed) is not cancelled for nothing.
  try {
    await client.call({ account, to: tx.to, data: tx.data });
  } catch (err) {
    throw new Error(`the router refuses to refund ${opts.quoteHash}: ${revertReason(err).text}`);
  }

  const { destination, cancelTxHash } = await cancelOnDestination(opts, plans, order, src.chainId, account);

  const hash = await sendChecked(client, url, account, tx, 'refund');
  const receipt = await client.getTransactionReceipt({ hash });
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
    ...(cancelTxHash ? { cancel_tx_hash: cancelTxHash } : {}),
  };
}

/**
 * Cancels the order on a local destination chain, refusing one already filled there; says what it
 * could not do (a destination not running locally, e.g. Solana).
 */
async function cancelOnDestination(
  opts: RefundOptions,
  plans: ReturnType<typeof readDevnetPlan>,
  order: Order,
  srcChainId: number,
  account: PrivateKeyAccount,
): Promise<{ destination: string; cancelTxHash?: Hex }> {
  if (order.dstChainId === BigInt(srcChainId)) return { destination: 'same chain: the router itself refuses a filled order' };
  const dst = plans.find((p) => BigInt(p.chainId) === order.dstChainId);
  const dstUrl = dst && opts.rpcUrls.get(dst.name);
  if (!dst || !dstUrl)
    return {
      destination: `chain id ${order.dstChainId} is not a running local chain: the order was not cancelled there, nor its fill checked`,
    };
  const client = createPublicClient({ transport: http(dstUrl, { timeout: 10_000 }), pollingInterval: 250 });
  const filled = await client.readContract({
    address: dst.depositTarget,
    abi: XCHAIN_ROUTER_ABI,
    functionName: 'filled',
    args: [opts.quoteHash],
  });
  if (filled) throw new Error(`${opts.quoteHash} was already filled on ${dst.name}: it cannot be refunded`);
  const tx = cancelTx(order, dst.depositTarget);
  try {
    await client.call({ account, to: tx.to, data: tx.data });
  } catch (err) {
    // A fill that landed since the read above ends here as AlreadyFilled.
    throw new Error(`the router on ${dst.name} refuses to cancel ${opts.quoteHash}: ${revertReason(err).text}`);
  }
  return { destination: `cancelled on ${dst.name}`, cancelTxHash: await sendChecked(client, dstUrl, account, tx, `cancel on ${dst.name}`) };
}

/** Sends a router call and waits for its receipt; throws when it reverted. */
async function sendChecked(
  client: PublicClient,
  url: string,
  account: PrivateKeyAccount,
  tx: { to: Address; data: Hex },
  what: string,
): Promise<Hex> {
  const wallet = createWalletClient({ account, transport: http(url, { timeout: 10_000 }) });
  const hash = await wallet.sendTransaction({ to: tx.to, data: tx.data, chain: null });
  const receipt = await client.waitForTransactionReceipt({ hash, timeout: 30_000 });
  if (receipt.status !== 'success') throw new Error(`the ${what} transaction ${hash} reverted`);
  return hash;
}
