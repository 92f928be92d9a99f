import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { RpcError, type CallerContext, type GetQuoteRequest, type PreviewQuoteRequest, type Quote, type QuotePreview, type StoredQuote } from '@xchain/contracts';
import { type Hex, hashOrder, hashReferrers, orderToWire, toBytes32, type Order } from '@xchain/order-codec';
import { type Prisma, type PrismaClient } from '@xchain/quote-engine-db';
import { DB } from '../db.providers';
import { EtaService } from '../orders/eta.service';
import { normaliseAddress } from './addresses';
import { invalid } from './quote-errors';
import { QuotePipeline, type PricedRequest } from './quote-pipeline';
import { pricedFields } from './quote-wire';

const TRADE_TYPE_NUMBER = {
  TRADE_TYPE_EXACT_INPUT: 1,
  TRADE_TYPE_EXPECTED_OUTPUT: 2,
  TRADE_TYPE_EXACT_INPUT_GUARANTEED_OUTPUT: 3,
  TRADE_TYPE_EXACT_OUTPUT: 4,
} as const;
const EXPIRY_SECS = 30 * 60;

/** PreviewQuote, GetQuote (bind, hash, store) and stored-quote lookups. */
@Injectable()
export class QuoteService {
  constructor(
    @Inject(QuotePipeline) private readonly pipeline: QuotePipeline,
    @Inject(EtaService) private readonly eta: EtaService,
    @Inject(DB) private readonly db: PrismaClient,
    @Inject('QUOTE_RETENTION_SECS') private readonly retentionSecs: number,
  ) {}

  async preview(req: PreviewQuoteRequest, caller: CallerContext | undefined): Promise<QuotePreview> {
    const p = await this.pipeline.price(req, caller, nowSecs());
    return { ...pricedFields(p.result, this.estimate(p)), same_chain_swap: p.result.sameChainSwap };
  }

  async quote(req: GetQuoteRequest, caller: CallerContext | undefined): Promise<Quote> {
    const now = nowSecs();
    const p = await this.pipeline.price(req, caller, now);
    const recipient = normaliseAddress(p.dstChain.vm, req.recipient);
    if (!recipient) throw invalid('recipient', `is not a ${p.dstChain.name} address`, 'INVALID_ADDRESS');
    const refund = normaliseAddress(p.srcChain.vm, req.refund_address);
    if (!refund) throw invalid('refund_address', `is not a ${p.srcChain.name} address`, 'INVALID_ADDRESS');

    const referrers = p.referrers.map((r) => ({ account: toBytes32(p.srcChain.vm, r.address), bps: r.bps }));
    const order: Order = {
      version: 1,
      salt: `0x${randomBytes(32).toString('hex')}` as Hex,
      srcChainId: p.srcChain.chainId,
      dstChainId: p.dstChain.chainId,
      srcToken: toBytes32(p.srcChain.vm, p.src.address),
      dstToken: toBytes32(p.dstChain.vm, p.dst.address),
      amountIn: p.result.amountIn,
      amountOut: p.result.amountOut,
      minAmountOut: p.result.minAmountOut,
      recipient: toBytes32(p.dstChain.vm, recipient),
      refundAddress: toBytes32(p.srcChain.vm, refund),
      gasDrop: p.input.gasDrop,
      tradeType: TRADE_TYPE_NUMBER[p.input.tradeType],
      slippageBps: p.result.slippageBps,
      srcSlippageBps: p.result.srcSlippageBps,
      dstGasNative: p.result.dstGasNative,
      sponsorGas: p.result.sponsorGasInSrcToken,
      gasless: p.input.gasless,
      sponsorFees: p.input.sponsorFees,
      referrersHash: hashReferrers(referrers),
      issuedAt: BigInt(now),
      expiresAt: BigInt(now + EXPIRY_SECS),
      depositTarget: toBytes32(p.srcChain.vm, p.srcChain.depositTarget),
    };
    const quoteHash = hashOrder(order);
    const content = {
      quote_hash: quoteHash,
      ...pricedFields(p.result, this.estimate(p)),
      deposit_target: p.srcChain.depositTarget,
      order: orderToWire(order, referrers),
      expires_at: rfc3339(now + EXPIRY_SECS),
    };
    const quote: Quote = p.result.sameChainSwap
      ? { same_chain_swap: content }
      : {
          cross_chain: {
            ...content,
            ...(p.input.gasless
              ? {
                  gasless: true,
                  ...(p.srcChain.vm === 'evm' && p.srcChain.gaslessExecutor ? { gasless_executor: p.srcChain.gaslessExecutor } : {}),
                  ...(p.srcChain.vm === 'svm' && p.srcChain.feePayer ? { fee_payer: p.srcChain.feePayer } : {}),
                }
              : {}),
          },
        };
    // Stored before it is returned: a deposit may carry this hash the moment the caller has it.
    await this.db.quote.create({
      data: {
        quoteHash,
        kind: p.result.sameChainSwap ? 'same_chain_swap' : 'cross_chain',
        srcChain: p.srcChain.name,
        dstChain: p.dstChain.name,
        routeType: p.result.sameChainSwap ? 'same_chain_swap' : 'cross_chain',
        gasless: p.input.gasless,
        sponsorFees: p.input.sponsorFees,
        callerKind: caller?.kind ?? 'keyless',
        apiKeyId: caller?.kind === 'api_key' ? caller.key_id : null,
        partnerId: caller?.kind === 'api_key' ? caller.partner_id : null,
        order: content.order,
        response: quote as Prisma.InputJsonObject,
        expiresAt: new Date((now + EXPIRY_SECS) * 1000),
        retainedUntil: new Date((now + this.retentionSecs) * 1000),
      },
    });
    return quote;
  }

  /** A stored quote while it is retained; NOT_FOUND otherwise. */
  async fetch(quoteHash: string): Promise<StoredQuote> {
    const row = await this.db.quote.findUnique({ where: { quoteHash: quoteHash.toLowerCase() } });
    if (!row || row.retainedUntil.getTime() < Date.now()) throw RpcError.notFound(`no retained quote ${quoteHash}`, 'QUOTE_NOT_FOUND');
    return {
      quote_hash: row.quoteHash,
      quote: row.response as Quote,
      created_at: row.createdAt.toISOString(),
      retained_until: row.retainedUntil.toISOString(),
      caller_kind: row.callerKind,
      ...(row.apiKeyId ? { api_key_id: row.apiKeyId } : {}),
      ...(row.partnerId ? { partner_id: row.partnerId } : {}),
    };
  }

  private estimate(p: PricedRequest) {
    return this.eta.estimate(p.srcChain.name, p.dstChain.name, p.result.sameChainSwap ? 'same_chain_swap' : 'cross_chain', p.dstChain.defaultFulfillEtaSecs);
  }
}

/** RFC 3339 in whole seconds, as the interface shows it (`2026-11-22T10:30:00Z`). */
function rfc3339(secs: number): string {
  return new Date(secs * 1000).toISOString().replace('.000Z', 'Z');
}

function nowSecs(): number {
  return Math.floor(Date.now() / 1000);
}
