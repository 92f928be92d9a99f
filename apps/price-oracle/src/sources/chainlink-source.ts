import type { Price } from '@xchain/contracts';
import { type Address, createPublicClient, http, parseAbi } from 'viem';
import type { Feed, PriceSource } from './source';

const AGGREGATOR_ABI = parseAbi([
  'function decimals() view returns (uint8)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
]);

/** `ethereum=0xabc…,usd-coin=0xdef…` → map of price id → aggregator address. */
export function parseFeedMap(text: string | undefined): Map<string, Address> {
  const map = new Map<string, Address>();
  for (const pair of (text ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [id, address] = pair.split('=');
    if (!id || !address || !/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error(`CHAINLINK_FEEDS entry ${pair} is not id=0xaddress`);
    map.set(id, address as Address);
  }
  return map;
}

/** Chainlink-style AggregatorV3 contracts read with viem; a round's updatedAt is its publish time. */
export class ChainlinkSource implements PriceSource {
  readonly name = 'chainlink' as const;
  private readonly client;
  private readonly decimals = new Map<Address, number>();

  constructor(
    rpcUrl: string,
    private readonly feeds: Map<string, Address>,
    timeoutMs: number,
  ) {
    this.client = createPublicClient({ transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0 }) });
  }

  async fetch(wanted: readonly Feed[]): Promise<Price[]> {
    const out: Price[] = [];
    await Promise.all(
      wanted.map(async (f) => {
        const address = this.feeds.get(f.price_id);
        if (!address) return;
        let decimals = this.decimals.get(address);
        if (decimals === undefined) {
          decimals = await this.client.readContract({ address, abi: AGGREGATOR_ABI, functionName: 'decimals' });
          this.decimals.set(address, decimals);
        }
        const [, answer, , updatedAt] = await this.client.readContract({ address, abi: AGGREGATOR_ABI, functionName: 'latestRoundData' });
        if (answer <= 0n) return; // a non-positive answer is a broken feed, never a price
        out.push({ price_id: f.price_id, price: answer.toString(), expo: -decimals, conf: '0', publish_time: Number(updatedAt), source: 'chainlink' });
      }),
    );
    return out;
  }
}
