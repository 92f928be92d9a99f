import { type ChainHead, type ChainLog, placedLogs, evmPublicClient } from '@xchain/chain-watch';
import { PARTNER_FUNDING_ROUTER_ABI, REFERRAL_VOUCHER_ROUTER_ABI } from '@xchain/partner-chain';
import { type Address, type Hex, getAddress } from 'viem';

/** The funding router's `Funded` event. */
export interface FundedLog extends ChainLog {
  fundingId: Hex;
  token: Address;
  payer: Address;
  amount: bigint;
}

/** The voucher router's `VoucherRedeemed` event. */
export interface VoucherRedeemedLog extends ChainLog {
  router: Address;
  voucherId: Hex;
  referrer: Hex;
  token: Hex;
  amount: bigint;
}

/** What the partner-service's chain watchers need of an EVM chain; a real JSON-RPC node behind it. */
export interface EvmChain extends ChainHead {
  /** Events of `router` in [from, to], in chain order. */
  fundedLogs(router: Address, from: bigint, to: bigint): Promise<FundedLog[]>;
  voucherRedeemedLogs(router: Address, from: bigint, to: bigint): Promise<VoucherRedeemedLog[]>;
  blockTime(block: bigint): Promise<Date>;
}

type Item<A extends readonly { type: string; name?: string }[], N extends string> = Extract<A[number], { type: 'event'; name: N }>;
const FUNDED = PARTNER_FUNDING_ROUTER_ABI.find(
  (i): i is Item<typeof PARTNER_FUNDING_ROUTER_ABI, 'Funded'> => i.type === 'event' && i.name === 'Funded',
)!;
const REDEEMED = REFERRAL_VOUCHER_ROUTER_ABI.find(
  (i): i is Item<typeof REFERRAL_VOUCHER_ROUTER_ABI, 'VoucherRedeemed'> => i.type === 'event' && i.name === 'VoucherRedeemed',
)!;

/** viem over HTTP, with a deadline per call and no retries of its own (the watchers' loop retries). */
export function rpcEvmChain(url: string, timeoutMs: number): EvmChain {
  const client = evmPublicClient(url, { timeoutMs });
  return {
    chainId: () => client.getChainId(),
    head: () => client.getBlockNumber({ cacheTime: 0 }),
    async fundedLogs(router, from, to) {
      const logs = await client.getLogs({ address: router, event: FUNDED, fromBlock: from, toBlock: to, strict: true });
      return placedLogs(logs, (l, at) => ({
        ...at,
        fundingId: l.args.fundingId,
        token: getAddress(l.args.token),
        payer: getAddress(l.args.from),
        amount: l.args.amount,
      }));
    },
    async voucherRedeemedLogs(router, from, to) {
      const logs = await client.getLogs({ address: router, event: REDEEMED, fromBlock: from, toBlock: to, strict: true });
      return placedLogs(logs, (l, at) => ({
        ...at,
        router: getAddress(l.address),
        voucherId: l.args.id,
        referrer: l.args.referrer,
        token: l.args.token,
        amount: l.args.amount,
      }));
    },
    async blockTime(block) {
      const b = await client.getBlock({ blockNumber: block });
      return new Date(Number(b.timestamp) * 1000);
    },
  };
}
