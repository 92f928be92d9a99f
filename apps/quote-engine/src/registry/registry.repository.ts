import { Inject, Injectable } from '@nestjs/common';
import type { ListPriceFeedsResponse } from '@xchain/contracts';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';

/** Registry reads that are not on a hot path (ListTokens and ListChains come from RegistryCache). */
@Injectable()
export class RegistryRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  /** One feed per distinct price identity of the listed tokens. */
  async listPriceFeeds(): Promise<ListPriceFeedsResponse> {
    const rows = await this.db.token.findMany({
      where: { listed: true, coingeckoId: { not: null } },
      select: { coingeckoId: true, symbol: true, pythFeedId: true },
      orderBy: [{ coingeckoId: 'asc' }, { pythFeedId: 'asc' }],
    });
    const feeds = new Map<string, ListPriceFeedsResponse['feeds'][number]>();
    for (const r of rows) {
      const id = r.coingeckoId!;
      const existing = feeds.get(id);
      if (!existing || (!existing.pyth_feed_id && r.pythFeedId)) {
        feeds.set(id, { price_id: id, symbol: r.symbol, ...(r.pythFeedId ? { pyth_feed_id: r.pythFeedId } : {}) });
      }
    }
    return { feeds: [...feeds.values()] };
  }
}
