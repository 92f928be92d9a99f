import { Inject, Injectable } from '@nestjs/common';
import type { ListPriceFeedsResponse } from '@xchain/contracts';
import { Prisma, type Chain, type PrismaClient, type Token } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';
import type { RegistryFile } from './registry-file';

/** The registry's tables: what RegistryCache loads, the price feeds, and the operator's seeding from the registry file. */
@Injectable()
export class RegistryRepository {
  constructor(@Inject(DB) private readonly db: PrismaClient) {}

  /** Every chain and every listed token, ordered as the lists are served (chain id; chain, symbol, address in the database's collation). */
  async lists(): Promise<[Chain[], Token[]]> {
    return Promise.all([
      this.db.chain.findMany({ orderBy: { chainId: 'asc' } }),
      this.db.token.findMany({ where: { listed: true }, orderBy: [{ chainName: 'asc' }, { symbol: 'asc' }, { address: 'asc' }] }),
    ]);
  }

  /** `seedRegistry` on this repository's database. */
  seed(file: RegistryFile): Promise<SeedResult> {
    return seedRegistry(this.db, file);
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

export interface SeedResult {
  chains: number;
  tokens: number;
  delisted: number;
}

/**
 * Writes the registry file into the database in one transaction. Idempotent: a second run
 * changes nothing; a token removed from the file is delisted (kept, so old orders still resolve).
 */
export async function seedRegistry(db: PrismaClient, file: RegistryFile): Promise<SeedResult> {
  return db.$transaction(async (tx) => {
    for (const c of file.chains) {
      const data = {
        chainId: BigInt(c.chain_id),
        vm: c.vm,
        nativeSymbol: c.native_symbol,
        nativeDecimals: c.native_decimals,
        enabled: c.enabled,
        gasless: c.gasless,
        maxGasDrop: new Prisma.Decimal(c.max_gas_drop),
        depositTarget: c.deposit_target,
        gaslessExecutor: c.gasless_executor ?? null,
        feePayer: c.fee_payer ?? null,
        defaultFulfillEtaSecs: c.default_fulfill_eta_secs === undefined ? null : BigInt(c.default_fulfill_eta_secs),
        explorerTxUrl: c.explorer_tx_url ?? null,
      };
      await tx.chain.upsert({ where: { name: c.chain }, create: { name: c.chain, ...data }, update: data });
    }
    for (const t of file.tokens) {
      const data = {
        symbol: t.symbol,
        decimals: t.decimals,
        tier: t.tier,
        logoUrl: t.logo_url,
        permit: t.permit,
        coingeckoId: t.coingecko_id ?? null,
        pythFeedId: t.pyth_feed_id ?? null,
        listed: true,
      };
      await tx.token.upsert({
        where: { chainName_address: { chainName: t.chain, address: t.address } },
        create: { chainName: t.chain, address: t.address, ...data },
        update: data,
      });
    }
    const keep = new Set(file.tokens.map((t) => `${t.chain}:${t.address}`));
    const listed = await tx.token.findMany({ where: { listed: true }, select: { chainName: true, address: true } });
    const gone = listed.filter((t) => !keep.has(`${t.chainName}:${t.address}`));
    for (const t of gone) {
      await tx.token.update({
        where: { chainName_address: { chainName: t.chainName, address: t.address } },
        data: { listed: false },
      });
    }
    return { chains: file.chains.length, tokens: file.tokens.length, delisted: gone.length };
  });
}
