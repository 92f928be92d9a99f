import { Inject, Injectable } from '@nestjs/common';
import type { Chain, ListChainsResponse, ListPriceFeedsResponse, ListTokensResponse, Token } from '@xchain/contracts';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';

/** Reads the chain and token registry and shapes it for the wire. */
@Injectable()
export class RegistryRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  async listTokens(): Promise<ListTokensResponse> {
    const rows = await this.db.token.findMany({
      where: { listed: true },
      include: { chain: { select: { chainId: true } } },
      orderBy: [{ chainName: 'asc' }, { symbol: 'asc' }, { address: 'asc' }],
    });
    const tokens: Token[] = rows.map((t) => ({
      chain: t.chainName,
      chain_id: t.chain.chainId.toString(),
      address: t.address,
      tier: t.tier as Token['tier'],
      symbol: t.symbol,
      decimals: t.decimals,
      logo_url: t.logoUrl,
      permit: t.permit,
    }));
    return { tokens };
  }

  async listChains(): Promise<ListChainsResponse> {
    const rows = await this.db.chain.findMany({ orderBy: { chainId: 'asc' } });
    const chains: Chain[] = rows.map((c) => ({
      chain: c.name,
      chain_id: c.chainId.toString(),
      vm: c.vm,
      native_symbol: c.nativeSymbol,
      native_decimals: c.nativeDecimals,
      enabled: c.enabled,
      gasless: c.gasless,
      max_gas_drop: c.maxGasDrop.toFixed(0),
      deposit_target: c.depositTarget,
      ...(c.gaslessExecutor ? { gasless_executor: c.gaslessExecutor } : {}),
      ...(c.feePayer ? { fee_payer: c.feePayer } : {}),
    }));
    return { chains };
  }

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
