import { evmPublicClient } from '@xchain/chain-watch';
import type { Price } from '@xchain/contracts';
import { type Address, parseAbi, type PublicClient } from 'viem';
import { MIN_EXPO } from '../decimal';
import { describeError, type Feed, type PriceSource } from './source';

export const AGGREGATOR_V3_ABI = parseAbi([
  'function decimals() view returns (uint8)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
]);

export interface ChainlinkOptions {
  rpcUrl: string;
  /** price id → AggregatorV3 address. */
  feeds: ReadonlyMap<string, Address>;
  timeoutMs: number;
}

/**
 * Chainlink-style AggregatorV3 contracts read with viem. A round's `updatedAt` is its publish
 * time; a non-positive answer or an unfinished round (updatedAt 0) is never a price. One broken
 * feed does not hide the others; the source fails only when no feed gives a value.
 */
export class ChainlinkSource implements PriceSource {
  readonly name = 'chainlink' as const;
  private readonly client: PublicClient;
  /** An aggregator's decimals never change: read once. */
  private readonly decimals = new Map<Address, number>();

  constructor(private readonly opts: ChainlinkOptions) {
    this.client = evmPublicClient(opts.rpcUrl, { timeoutMs: opts.timeoutMs });
  }

  covers(feed: Feed): boolean {
    return this.opts.feeds.has(feed.price_id);
  }

  async fetch(feeds: readonly Feed[]): Promise<Price[]> {
    const wanted = feeds.flatMap((f) => {
      const address = this.opts.feeds.get(f.price_id);
      return address ? [{ priceId: f.price_id, address }] : [];
    });
    const results = await Promise.allSettled(wanted.map((w) => this.read(w.priceId, w.address)));
    const prices = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failures = results.flatMap((r, i) => (r.status === 'rejected' ? [`${wanted[i]?.priceId}: ${describeError(r.reason)}`] : []));
    if (prices.length === 0 && failures.length > 0) throw new Error(failures.join('; '));
    return prices;
  }

  private async read(priceId: string, address: Address): Promise<Price> {
    const [decimals, [, answer, , updatedAt]] = await Promise.all([
      this.decimalsOf(address),
      this.client.readContract({ address, abi: AGGREGATOR_V3_ABI, functionName: 'latestRoundData' }),
    ]);
    if (answer <= 0n) throw new Error(`answer ${answer} is not a positive price`);
    if (updatedAt === 0n) throw new Error('the latest round is not complete');
    return {
      price_id: priceId,
      price: answer.toString(),
      expo: decimals === 0 ? 0 : -decimals,
      conf: '0',
      publish_time: Number(updatedAt),
      source: 'chainlink',
    };
  }

  private async decimalsOf(address: Address): Promise<number> {
    const known = this.decimals.get(address);
    if (known !== undefined) return known;
    const decimals = await this.client.readContract({ address, abi: AGGREGATOR_V3_ABI, functionName: 'decimals' });
    if (decimals > -MIN_EXPO) throw new Error(`${decimals} decimals is beyond what a price may carry`);
    this.decimals.set(address, decimals);
    return decimals;
  }
}
