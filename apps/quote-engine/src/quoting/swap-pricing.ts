import { FixedRatePricer, type OraclePoolPricer, type PricedToken, type RouteLeg, type SwapLegPricer } from '@xchain/pricing-core';
import { token } from '@xchain/service-kit';
import type { ZeroExClient } from '../swap/zero-ex.client';

export const SWAP_PRICING = token<SwapPricing>('SWAP_PRICING');

/**
 * Chooses how swap legs are priced. The oracle pool model always gives a first answer (it also
 * sizes the legs); with an aggregator configured, each EVM swap leg is re-priced from the
 * aggregator's quote for that leg's size, and the trade is priced again with those rates.
 */
export class SwapPricing {
  constructor(
    readonly oracle: OraclePoolPricer,
    private readonly zeroEx: ZeroExClient | undefined,
    private readonly chainIds: (chain: string) => { id: bigint; vm: 'evm' | 'svm' } | undefined,
  ) {}

  async forLegs(legs: RouteLeg[]): Promise<SwapLegPricer | undefined> {
    if (!this.zeroEx) return undefined;
    const rates = new Map<string, FixedRatePricer>();
    await Promise.all(
      legs
        .filter((l) => l.kind === 'swap' && this.chainIds(l.chain)?.vm === 'evm' && l.amountIn > 0n)
        .map(async (l) => {
          const price = await this.zeroEx!.price(this.chainIds(l.chain)!.id, l.tokenIn, l.tokenOut, l.amountIn);
          rates.set(`${l.chain}:${l.tokenIn}>${l.tokenOut}`, new FixedRatePricer(price.sellAmount, price.buyAmount));
        }),
    );
    if (rates.size === 0) return undefined;
    const oracle = this.oracle;
    const pricerOf = (tokenIn: PricedToken, tokenOut: PricedToken) =>
      rates.get(`${tokenIn.chain}:${tokenIn.address}>${tokenOut.address}`) ?? oracle;
    return {
      amountOut: (tokenIn, tokenOut, amountIn) => pricerOf(tokenIn, tokenOut).amountOut(tokenIn, tokenOut, amountIn),
      // The inverse per leg, so expected- and exact-output quotes solve without bisection here too.
      amountInFor: (tokenIn, tokenOut, wanted) => pricerOf(tokenIn, tokenOut).amountInFor?.(tokenIn, tokenOut, wanted),
    };
  }
}
