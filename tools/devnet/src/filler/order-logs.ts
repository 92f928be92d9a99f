import { XCHAIN_ROUTER_ABI } from '@xchain/evm-gasless';
import type { Order } from '@xchain/order-codec';
import { type Abi, type Address, BaseError, type Hex, type PublicClient, decodeErrorResult, getAbiItem, parseAbi } from 'viem';

/** The router's `OrderOpened(quoteHash, order)`: the whole order, emitted with each deposit. */
export const ORDER_OPENED = getAbiItem({ abi: XCHAIN_ROUTER_ABI, name: 'OrderOpened' });

export interface OpenedOrder {
  quoteHash: Hex;
  order: Order;
  blockNumber: bigint;
  txHash: Hex;
}

/** Every order opened on `router` in blocks [fromBlock, toBlock], in chain order. */
export async function readOpenedOrders(client: PublicClient, router: Address, fromBlock: bigint, toBlock: bigint): Promise<OpenedOrder[]> {
  const logs = await client.getLogs({ address: router, event: ORDER_OPENED, fromBlock, toBlock, strict: true });
  return logs
    .filter((l) => !l.removed && l.blockNumber !== null && l.transactionHash !== null)
    .map((l) => ({ quoteHash: l.args.quoteHash, order: l.args.order as Order, blockNumber: l.blockNumber!, txHash: l.transactionHash! }));
}

/** The one order opened on `router` under `quoteHash`, or undefined when none was deposited there. */
export async function findOpenedOrder(client: PublicClient, router: Address, quoteHash: Hex): Promise<OpenedOrder | undefined> {
  const logs = await client.getLogs({
    address: router,
    event: ORDER_OPENED,
    args: { quoteHash },
    fromBlock: 0n,
    toBlock: 'latest',
    strict: true,
  });
  const log = logs.find((l) => !l.removed && l.blockNumber !== null && l.transactionHash !== null);
  return (
    log && { quoteHash: log.args.quoteHash, order: log.args.order as Order, blockNumber: log.blockNumber!, txHash: log.transactionHash! }
  );
}

/** Everything a router call can end in: the router's errors and those of the OpenZeppelin tokens it moves. */
const ROUTER_CALL_ERRORS = [
  ...XCHAIN_ROUTER_ABI,
  ...parseAbi([
    'error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
    'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  ]),
] as Abi;

/**
 * Why a router call failed, for a log line: the custom error and its arguments when the node
 * returned revert data (`AlreadyFilled(0x…)`), else the first line of the error.
 */
export function revertReason(err: unknown): { name?: string; text: string } {
  const raw = err instanceof BaseError ? err.walk((e) => typeof (e as { data?: unknown }).data === 'string') : null;
  const data = (raw as { data?: Hex } | null)?.data;
  if (data && data !== '0x') {
    try {
      const { errorName, args } = decodeErrorResult({ abi: ROUTER_CALL_ERRORS, data });
      return { name: errorName, text: `${errorName}(${(args ?? []).map(String).join(', ')})` };
    } catch {
      return { text: `reverted with ${data.slice(0, 10)}` };
    }
  }
  const message = err instanceof BaseError ? err.shortMessage : err instanceof Error ? err.message : String(err);
  return { text: message.split('\n')[0]! };
}
