import { PARTNER_FUNDING_ROUTER_ABI } from '@xchain/partner-chain';
import { type Address, type Hex, createPublicClient, getAddress, http } from 'viem';

/** One `Funded` event, as read from the chain. */
export interface FundedLog {
  txHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  fundingId: Hex;
  token: Address;
  payer: Address;
  amount: bigint;
}

/** What the funding watcher needs of the funding chain; a real JSON-RPC node behind it. */
export interface FundingChain {
  chainId(): Promise<number>;
  head(): Promise<bigint>;
  /** `Funded` events of `router` in [from, to], in chain order. */
  fundedLogs(router: Address, from: bigint, to: bigint): Promise<FundedLog[]>;
}

const FUNDED_EVENT = PARTNER_FUNDING_ROUTER_ABI[0];

/** viem over HTTP, with a deadline per call and no retries of its own (the watcher's loop retries). */
export function rpcFundingChain(url: string, timeoutMs: number): FundingChain {
  const client = createPublicClient({ transport: http(url, { timeout: timeoutMs, retryCount: 0 }) });
  return {
    chainId: () => client.getChainId(),
    head: () => client.getBlockNumber({ cacheTime: 0 }),
    async fundedLogs(router, from, to) {
      const logs = await client.getLogs({ address: router, event: FUNDED_EVENT, fromBlock: from, toBlock: to, strict: true });
      return logs
        .filter((l) => !l.removed && l.transactionHash !== null && l.logIndex !== null && l.blockNumber !== null)
        .map((l) => ({
          txHash: l.transactionHash!,
          logIndex: l.logIndex!,
          blockNumber: l.blockNumber!,
          fundingId: l.args.fundingId,
          token: getAddress(l.args.token),
          payer: getAddress(l.args.from),
          amount: l.args.amount,
        }))
        .sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
    },
  };
}
