import { type ChainHead, type ChainLog, placedLogs, evmPublicClient } from '@xchain/chain-watch';
import { XCHAIN_ROUTER_ABI } from '@xchain/evm-gasless';
import { type Address, type Hex, getAddress } from 'viem';

/** The router's `Deposited` event: an order's funds arrived on its source chain. */
export interface DepositedLog extends ChainLog {
  kind: 'deposited';
  quoteHash: Hex;
  depositor: Address;
  token: Address;
  amount: bigint;
}

/** The router's `Filled` event: a filler delivered an order on its destination chain. */
export interface FilledLog extends ChainLog {
  kind: 'fulfilled';
  quoteHash: Hex;
  filler: Address;
  recipient: Address;
  token: Address;
  amount: bigint;
  gasDrop: bigint;
}

/** The router's `Refunded` event: an order's deposit went back to its refund address. */
export interface RefundedLog extends ChainLog {
  kind: 'refunded';
  quoteHash: Hex;
  to: Address;
  token: Address;
  amount: bigint;
}

/** Every step of an order the router of a chain records. */
export type RouterLog = DepositedLog | FilledLog | RefundedLog;

/** What the order watcher needs of an EVM chain; a real JSON-RPC node behind it. */
export interface DepositChain extends ChainHead {
  /** `Deposited`, `Filled` and `Refunded` events of `router` in [from, to], in chain order. */
  routerLogs(router: Address, from: bigint, to: bigint): Promise<RouterLog[]>;
  blockTime(block: bigint): Promise<Date>;
  blockHash(block: bigint): Promise<Hex>;
}

type EventItem<N extends string> = Extract<(typeof XCHAIN_ROUTER_ABI)[number], { type: 'event'; name: N }>;
const DEPOSITED = XCHAIN_ROUTER_ABI.find((i): i is EventItem<'Deposited'> => i.type === 'event' && i.name === 'Deposited')!;
const FILLED = XCHAIN_ROUTER_ABI.find((i): i is EventItem<'Filled'> => i.type === 'event' && i.name === 'Filled')!;
const REFUNDED = XCHAIN_ROUTER_ABI.find((i): i is EventItem<'Refunded'> => i.type === 'event' && i.name === 'Refunded')!;

/** viem over HTTP, with a deadline per call and no retries of its own (the watcher's loop retries). */
export function rpcDepositChain(url: string, timeoutMs: number): DepositChain {
  const client = evmPublicClient(url, { timeoutMs });
  return {
    chainId: () => client.getChainId(),
    head: () => client.getBlockNumber({ cacheTime: 0 }),
    async routerLogs(router, from, to) {
      const logs = await client.getLogs({
        address: router,
        events: [DEPOSITED, FILLED, REFUNDED],
        fromBlock: from,
        toBlock: to,
        strict: true,
      });
      return placedLogs(logs, (l, at): RouterLog => {
        switch (l.eventName) {
          case 'Deposited':
            return {
              ...at,
              kind: 'deposited',
              quoteHash: lower(l.args.quoteHash),
              depositor: getAddress(l.args.depositor),
              token: getAddress(l.args.token),
              amount: l.args.amount,
            };
          case 'Filled':
            return {
              ...at,
              kind: 'fulfilled',
              quoteHash: lower(l.args.quoteHash),
              filler: getAddress(l.args.filler),
              recipient: getAddress(l.args.recipient),
              token: getAddress(l.args.token),
              amount: l.args.amount,
              gasDrop: l.args.gasDrop,
            };
          case 'Refunded':
            return {
              ...at,
              kind: 'refunded',
              quoteHash: lower(l.args.quoteHash),
              to: getAddress(l.args.to),
              token: getAddress(l.args.token),
              amount: l.args.amount,
            };
        }
      });
    },
    async blockTime(block) {
      const b = await client.getBlock({ blockNumber: block });
      return new Date(Number(b.timestamp) * 1000);
    },
    async blockHash(block) {
      return (await client.getBlock({ blockNumber: block })).hash;
    },
  };
}

const lower = (h: Hex) => h.toLowerCase() as Hex;
