import { Inject, Injectable } from '@nestjs/common';
import { FetchQuoteRpc, RpcError, type OrderEvent, type Quote } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import { fromBytes32, type Hex } from '@xchain/order-codec';
import { Prisma, type PrismaClient } from '@xchain/partner-service-db';
import { DB } from '../db.providers';
import { RegistryClient } from '../registry-client';
import { decodeCursor, encodeCursor, pageSizeOf } from './cursor';

const BPS = 10_000n;
const INTERNAL = { kind: 'internal', service: 'partner-service' } as const;

export type AccrualOutcome = 'accrued' | 'already_accrued' | 'no_partner' | 'no_referrers';

/**
 * Referral accruals: when an order is fulfilled, each referrer of its quote earns its bps of the
 * deposit, in the source token, floored (the rounding stays with the operator). Accruals belong to
 * the partner whose API key made the quote; keyless quotes have no partner to credit.
 */
@Injectable()
export class ReferralsService {
  constructor(
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(RegistryClient) private readonly registry: RegistryClient,
  ) {}

  /** Idempotent per (quote, referrer): a redelivered event accrues nothing twice. */
  async accrue(event: OrderEvent): Promise<AccrualOutcome> {
    const stored = await this.rpc.call(FetchQuoteRpc, { quote_hash: event.quote_hash }, { caller: INTERNAL });
    if (!stored.partner_id) return 'no_partner';
    const content = contentOf(stored.quote);
    const order = content.order as Record<string, unknown>;
    const referrers = (order['referrers'] as { account: string; bps: string }[] | undefined) ?? [];
    if (referrers.length === 0) return 'no_referrers';
    const srcChainId = String(order['src_chain_id']);
    const chain = await this.registry.chainById(srcChainId);
    if (!chain) throw RpcError.unavailable(`chain id ${srcChainId} is not in the registry`, 'UNKNOWN_CHAIN');
    const token = fromBytes32(chain.vm, order['src_token'] as Hex);
    const meta = await this.registry.token(chain.chain, token);
    const amountIn = BigInt(String(order['amount_in']));
    const rows = referrers.map((r) => ({
      partnerId: stored.partner_id!,
      quoteHash: stored.quote_hash,
      referrer: fromBytes32(chain.vm, r.account as Hex),
      chain: chain.chain,
      chainId: chain.chain_id,
      token,
      tokenSymbol: meta?.symbol ?? '',
      decimals: meta?.decimals ?? 0,
      amount: ((amountIn * BigInt(r.bps)) / BPS).toString(),
    }));
    const created = await this.db.referralAccrual.createMany({ data: rows.filter((r) => r.amount !== '0'), skipDuplicates: true });
    return created.count > 0 ? 'accrued' : 'already_accrued';
  }

  /** Groups by (referrer, chain, token), listed in that order; `next_cursor` is empty on the last page. */
  async groups(partnerId: string, cursor: string | undefined, pageSize: number | undefined) {
    const size = pageSizeOf(pageSize);
    const after = cursor ? decodeCursor(cursor) : undefined;
    const position = after ? Prisma.sql`AND (referrer, chain, token) > (${after.referrer}, ${after.chain}, ${after.token})` : Prisma.empty;
    const rows = await this.db.$queryRaw<
      { referrer: string; chain: string; chain_id: string; token: string; token_symbol: string; decimals: number; amount: string; count: string }[]
    >`
      SELECT referrer, chain, MIN(chain_id) AS chain_id, token, MIN(token_symbol) AS token_symbol, MIN(decimals) AS decimals,
             SUM(amount)::text AS amount, COUNT(*)::text AS count
        FROM referral_accruals
       WHERE partner_id = ${partnerId} ${position}
       GROUP BY referrer, chain, token
       ORDER BY referrer, chain, token
       LIMIT ${size + 1}`;
    const page = rows.slice(0, size);
    const last = page[page.length - 1];
    return {
      groups: page.map((r) => ({ ...r, decimals: Number(r.decimals) })),
      next_cursor: rows.length > size && last ? encodeCursor(last) : '',
    };
  }
}

function contentOf(q: Quote) {
  return 'cross_chain' in q ? q.cross_chain : q.same_chain_swap;
}
