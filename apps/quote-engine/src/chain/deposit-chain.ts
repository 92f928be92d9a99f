import { type ChainHead, type ChainLog, placedLogs } from '@xchain/chain-watch';
import { XCHAIN_ROUTER_ABI } from '@xchain/evm-gasless';
import { type Address, type Hex, createPublicClient, getAddress, http } from 'viem';

/** The router's `Deposited` event: an order's funds arrived on its source chain. */
export interface DepositedLog extends ChainLog {
  quoteHash: Hex;
  depositor: Address;
  token: Address;
  amount: bigint;
}

/** What the deposit watcher needs of an EVM chain; a real JSON-RPC node behind it. */
export interface DepositChain extends ChainHead {
  /** `Deposited` events of `router` in [from, to], in chain order. */
  depositedLogs(router: Address, from: bigint, to: bigint): Promise<DepositedLog[]>;
  blockTime(block: bigint): Promise<Date>;
}

type EventItem<N extends string> = Extract<(typeof XCHAIN_ROUTER_ABI)[number], { type: 'event'; name: N }>;
const DEPOSITED = XCHAIN_ROUTER_ABI.find((i): i is EventItem<'Deposited'> => i.type === 'event' && i.name === 'Deposited')!;

/** viem over HTTP, with a deadline per call and no retries of its own (the watcher's loop retries). */
export function rpcDepositChain(url: string, timeoutMs: number): DepositChain {
  const client = createPublicClient({ transport: http(url, { timeout: timeoutMs, retryCount: 0 }) });
  return {
    chainId: () => client.getChainId(),
    head: () => client.getBlockNumber({ cacheTime: 0 }),
    async depositedLogs(router, from, to) {
      const logs = await client.getLogs({ address: router, event: DEPOSITED, fromBlock: from, toBlock: to, strict: true });
      return placedLogs(logs, (l, at) => ({
        ...at,
        quoteHash: l.args.quoteHash.toLowerCase() as Hex,
        depositor: getAddress(l.args.depositor),
        token: getAddress(l.args.token),
        amount: l.args.amount,
      }));
    },
    async blockTime(block) {
      const b = await client.getBlock({ blockNumber: block });
      return new Date(Number(b.timestamp) * 1000);
    },
  };
}
