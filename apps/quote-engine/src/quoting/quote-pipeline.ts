import { Inject, Injectable } from '@nestjs/common';
import { Code, RpcError, errorInfo, type CallerContext, type PreviewQuoteRequest, type Price } from '@xchain/contracts';
import {
  type ChainParams,
  type FeeConfig,
  PricingError,
  type PricedToken,
  type QuoteInput,
  type QuoteResult,
  type SwapLegPricer,
  priceE18FromExpo,
  priceQuote,
} from '@xchain/pricing-core';
import { PriceBook } from '../prices/price-book';
import { type ChainInfo, RegistryCache, type TokenInfo } from '../registry/registry-cache';
import { isChainAddress, normaliseAddress } from '../registry/addresses';
import { assertPriceImpact, priceImpactBps } from './price-impact';
import { fromPricingError, invalid } from './quote-errors';
import { type QuotingConfig, feeConfigOf } from '../quoting-config';
import { InventoryBook } from '../inventory/inventory-book';
import { SponsorFunding } from './sponsor-funding';
import { SWAP_PRICING, type SwapPricing } from './swap-pricing';
import { QUOTING_CONFIG } from '../config.tokens';

export interface PricedRequest {
  input: QuoteInput;
  result: QuoteResult;
  srcChain: ChainInfo;
  dstChain: ChainInfo;
  src: TokenInfo;
  dst: TokenInfo;
  /** Referrer addresses, normalised in the source chain's format. */
  referrers: { address: string; bps: number }[];
  nowSecs: number;
  /** Output (with any gas drop) short of the input at the oracle mid prices, bps (price-impact.ts). */
  priceImpactBps: number;
}

/**
 * The one pipeline behind PreviewQuote and GetQuote: resolve and check the request against the
 * registry and operator settings, take fresh prices from memory, and price it with the pure core.
 * Both operations call this, so at one instant their numbers are the same.
 */
@Injectable()
export class QuotePipeline {
  constructor(
    @Inject(RegistryCache) private readonly registry: RegistryCache,
    @Inject(PriceBook) private readonly prices: PriceBook,
    @Inject(QUOTING_CONFIG) private readonly config: QuotingConfig,
    @Inject(SWAP_PRICING) private readonly swaps: SwapPricing,
    @Inject(SponsorFunding) private readonly sponsors: SponsorFunding,
    @Inject(InventoryBook) private readonly live?: Pick<InventoryBook, 'live'>,
  ) {
    this.fees = feeConfigOf(config);
  }

  /** The fee settings of every quote, from the operator's configuration (fixed for the process). */
  private readonly fees: FeeConfig;

  /**
   * `extraDstGas`: destination native units to price in on top of the chain's fulfilment gas (a
   * destination call's gas), asked for once the chains are known; it may refuse the request.
   */
  async price(
    req: PreviewQuoteRequest,
    caller: CallerContext | undefined,
    nowSecs: number,
    extraDstGas?: (src: ChainInfo, dst: ChainInfo) => Promise<bigint>,
  ): Promise<PricedRequest> {
    // Without a registry every pair would look unknown: say "try again", not "unsupported".
    this.registry.assertLoaded();
    const srcChain = this.chain(req.src_chain, 'src_chain');
    const dstChain = this.chain(req.dst_chain, 'dst_chain');
    const src = this.token(srcChain, req.src_token, 'src_token');
    const dst = this.token(dstChain, req.dst_token, 'dst_token');
    const crossChain = srcChain.name !== dstChain.name;
    if (crossChain && this.config.suspended_pairs.includes(`${srcChain.name}>${dstChain.name}`)) {
      throw RpcError.unavailable(`bridging ${srcChain.name} to ${dstChain.name} is suspended`, 'BRIDGE_SUSPENDED', 300);
    }
    if (req.gasless) this.checkGasless(srcChain, src, crossChain);
    if (req.sponsor_fees) {
      if (!req.gasless) throw invalid('sponsor_fees', 'applies only to gasless quotes', 'GASLESS_UNSUPPORTED');
      if (caller?.kind !== 'api_key') {
        throw new RpcError(Code.UNAUTHENTICATED, 'sponsor_fees requires the x-api-key of a funded partner', [
          errorInfo('SPONSOR_FEES_REQUIRES_API_KEY'),
        ]);
      }
    }
    const referrers = (req.referrers ?? []).map((r, i) => {
      const address = normaliseAddress(srcChain.vm, r.address);
      if (!address) throw invalid(`referrers[${i}].address`, `is not a ${srcChain.name} address`, 'INVALID_REFERRERS');
      return { address, bps: r.bps };
    });

    const dstParams = this.chainParams(dstChain, nowSecs);
    if (extraDstGas) dstParams.fulfilGasNative += await extraDstGas(srcChain, dstChain);
    const input: QuoteInput = {
      src: this.priced(src, nowSecs),
      dst: this.priced(dst, nowSecs),
      srcChain: this.chainParams(srcChain, nowSecs),
      dstChain: dstParams,
      tradeType: req.trade_type,
      amount: BigInt(req.amount),
      gasDrop: req.gas_drop === '' ? 0n : BigInt(req.gas_drop),
      ...(req.slippage_bps !== undefined ? { slippageBps: req.slippage_bps } : {}),
      ...(req.src_slippage_bps !== undefined ? { srcSlippageBps: req.src_slippage_bps } : {}),
      referrers,
      gasless: req.gasless ?? false,
      sponsorFees: req.sponsor_fees ?? false,
      keyless: caller === undefined || caller.kind === 'keyless',
      fees: this.fees,
      ...(crossChain ? this.inventory(dst) : {}),
    };
    const result = await this.run(input);
    const priceImpact = priceImpactBps({ amount: result.amountIn, ...input.src }, [
      { amount: result.amountOut, ...input.dst },
      { amount: input.gasDrop, ...input.dstChain.native },
    ]);
    assertPriceImpact(priceImpact, req.max_price_impact_bps);
    if (input.sponsorFees && caller?.kind === 'api_key') {
      const gas = result.fees.filter((f) => f.name === 'sponsor_gas').reduce((sum, f) => sum + f.usdMicros, 0n);
      await this.sponsors.assertCovers(caller.partner_id, gas);
    }
    return { input, result, srcChain, dstChain, src, dst, referrers, nowSecs, priceImpactBps: priceImpact };
  }

  /** Prices with the oracle pool model, then — when an aggregator is configured — with its rates. */
  private async run(input: QuoteInput): Promise<QuoteResult> {
    try {
      const first = priceQuote(input, this.swaps.oracle);
      const pricer: SwapLegPricer | undefined = await this.swaps.forLegs(first.legs);
      return pricer ? priceQuote(input, pricer) : first;
    } catch (err) {
      if (err instanceof PricingError) throw fromPricingError(err);
      throw err;
    }
  }

  private chain(name: string, field: string): ChainInfo {
    const chain = this.registry.knownChain(name, field, 'UNSUPPORTED_PAIR');
    if (!chain.enabled) throw RpcError.unavailable(`quoting on ${name} is disabled`, 'CHAIN_DISABLED', 60, { chain: name });
    return chain;
  }

  private token(chain: ChainInfo, address: string, field: string): TokenInfo {
    if (!isChainAddress(chain.vm, address)) throw invalid(field, `is not a ${chain.name} address`, 'INVALID_ADDRESS');
    const token = this.registry.token(chain, address);
    if (!token) throw invalid(field, `${address} is not a supported token on ${chain.name}`, 'UNSUPPORTED_PAIR');
    return token;
  }

  private checkGasless(srcChain: ChainInfo, src: TokenInfo, crossChain: boolean): void {
    if (!crossChain) throw invalid('gasless', 'is only offered on cross-chain quotes', 'GASLESS_UNSUPPORTED');
    if (src.isNative) throw invalid('gasless', 'needs a token source, not the native asset', 'GASLESS_UNSUPPORTED');
    if (!srcChain.gasless) throw invalid('gasless', `is not offered from ${srcChain.name}`, 'GASLESS_UNSUPPORTED');
  }

  /**
   * Each token's priced form as of the price it was last built from: a quote prices six tokens
   * (both sides, and each chain's native and bridge asset), and most requests between two price
   * updates would build the same six again. Read-only to the pricing core.
   */
  private readonly pricedTokens = new WeakMap<TokenInfo, { price: Price; priced: PricedToken }>();

  private priced(t: TokenInfo, nowSecs: number): PricedToken {
    if (!t.priceId) throw RpcError.unavailable(`no price source for ${t.symbol} on ${t.chain}`, 'STALE_PRICE', 60, { token: t.address });
    const p = this.prices.fresh(t.priceId, nowSecs);
    const kept = this.pricedTokens.get(t);
    if (kept?.price === p) return kept.priced;
    const priced: PricedToken = Object.freeze({
      chain: t.chain,
      address: t.address,
      symbol: t.symbol,
      decimals: t.decimals,
      tier: t.tier,
      isNative: t.isNative,
      priceE18: priceE18FromExpo(BigInt(p.price), p.expo),
    });
    this.pricedTokens.set(t, { price: p, priced });
    return priced;
  }

  private chainParams(chain: ChainInfo, nowSecs: number): ChainParams {
    const settings = this.config.chains[chain.name];
    const native = this.registry.native(chain);
    const bridge = settings && this.registry.bySymbol(chain, settings.bridge_asset);
    if (!settings || !native || !bridge) {
      throw RpcError.unavailable(`${chain.name} is not configured for quoting`, 'CHAIN_DISABLED', 60, { chain: chain.name });
    }
    return {
      name: chain.name,
      native: this.priced(native, nowSecs),
      bridgeAsset: this.priced(bridge, nowSecs),
      fulfilGasNative: settings.fulfil_gas_native,
      relayGasNative: settings.relay_gas_native,
      maxGasDrop: chain.maxGasDrop,
    };
  }

  /** The least of the configured cap and the live inventory (D15); a stale reading refuses rather than guesses. */
  private inventory(dst: TokenInfo): { dstInventory?: bigint } {
    const cap = this.config.inventory[`${dst.chain}:${dst.symbol}`];
    const live = this.live?.live(dst.chain, dst.address) ?? { kind: 'unmanaged' as const };
    if (live.kind === 'stale') {
      throw RpcError.unavailable(
        `the ${dst.symbol} inventory on ${dst.chain} could not be confirmed lately; try again shortly`,
        'INSUFFICIENT_INVENTORY',
        10,
        {
          stale_secs: String(Math.floor(live.ageMs / 1000)),
        },
      );
    }
    const amounts = [cap, live.kind === 'available' ? live.amount : undefined].filter((a): a is bigint => a !== undefined);
    return amounts.length === 0 ? {} : { dstInventory: amounts.reduce((a, b) => (a < b ? a : b)) };
  }
}
