import { PARTNER_FUNDING_ROUTER_ABI, REFERRAL_VOUCHER_ROUTER_ABI } from '@xchain/partner-chain';
import { type Address, type Hex, createPublicClient, getAddress, http } from 'viem';

/** Where a log sits on its chain: enough to order it and to record it once. */
export interface ChainLog {
  txHash: Hex;
  logIndex: number;
  blockNumber: bigint;
}

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

/** What the chain watchers need of an EVM chain; a real JSON-RPC node behind it. */
export interface EvmChain {
  chainId(): Promise<number>;
  head(): Promise<bigint>;
  /** Events of `router` in [from, to], in chain order. */
  fundedLogs(router: Address, from: bigint, to: bigint): Promise<FundedLog[]>;
  voucherRedeemedLogs(router: Address, from: bigint, to: bigint): Promise<VoucherRedeemedLog[]>;
  blockTime(block: bigint): Promise<Date>;
}

type Item<A extends readonly { type: string; name?: string }[], N extends string> = Extract<A[number], { type: 'event'; name: N }>;
const FUNDED = PARTNER_FUNDING_ROUTER_ABI.find((i): i is Item<typeof PARTNER_FUNDING_ROUTER_ABI, 'Funded'> => i.type === 'event' && i.name === 'Funded')!;
const REDEEMED = REFERRAL_VOUCHER_ROUTER_ABI.find(
  (i): i is Item<typeof REFERRAL_VOUCHER_ROUTER_ABI, 'VoucherRedeemed'> => i.type === 'event' && i.name === 'VoucherRedeemed',
)!;

/** viem over HTTP, with a deadline per call and no retries of its own (the watchers' loop retries). */
export function rpcEvmChain(url: string, timeoutMs: number): EvmChain {
  const client = createPublicClient({ transport: http(url, { timeout: timeoutMs, retryCount: 0 }) });
  const placed = (l: { transactionHash: Hex | null; logIndex: number | null; blockNumber: bigint | null; removed: boolean }) =>
    !l.removed && l.transactionHash !== null && l.logIndex !== null && l.blockNumber !== null;
  const where = (l: { transactionHash: Hex | null; logIndex: number | null; blockNumber: bigint | null }): ChainLog => ({
    txHash: l.transactionHash!,
    logIndex: l.logIndex!,
    blockNumber: l.blockNumber!,
  });
  return {
    chainId: () => client.getChainId(),
    head: () => client.getBlockNumber({ cacheTime: 0 }),
    async fundedLogs(router, from, to) {
      const logs = await client.getLogs({ address: router, event: FUNDED, fromBlock: from, toBlock: to, strict: true });
      return logs.filter(placed).map((l) => ({
        ...where(l),
        fundingId: l.args.fundingId,
        token: getAddress(l.args.token),
        payer: getAddress(l.args.from),
        amount: l.args.amount,
      })).sort(inChainOrder);
    },
    async voucherRedeemedLogs(router, from, to) {
      const logs = await client.getLogs({ address: router, event: REDEEMED, fromBlock: from, toBlock: to, strict: true });
      return logs.filter(placed).map((l) => ({
        ...where(l),
        router: getAddress(l.address),
        voucherId: l.args.id,
        referrer: l.args.referrer,
        token: l.args.token,
        amount: l.args.amount,
      })).sort(inChainOrder);
    },
    async blockTime(block) {
      const b = await client.getBlock({ blockNumber: block });
      return new Date(Number(b.timestamp) * 1000);
    },
  };
}

export function inChainOrder(a: ChainLog, b: ChainLog): number {
  return a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1;
}

/** `EVM_RPC_URLS`: `chain=url` pairs, comma-separated (`base=https://…,ethereum=https://…`). */
export function parseRpcUrls(value: string): Map<string, string> {
  const urls = new Map<string, string>();
  for (const pair of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = pair.indexOf('=');
    const chain = pair.slice(0, eq).trim();
    const url = pair.slice(eq + 1).trim();
    if (eq < 1 || !/^[a-z][a-z0-9-]*$/.test(chain)) throw new Error(`"${pair}" is not chain=url with a lowercase chain name`);
    if (!/^https?:\/\/\S+$/.test(url)) throw new Error(`the URL of ${chain} is not an http(s) URL`);
    if (urls.has(chain)) throw new Error(`${chain} is named twice`);
    urls.set(chain, url);
  }
  return urls;
}
