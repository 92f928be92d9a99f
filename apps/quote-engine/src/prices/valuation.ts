import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@xchain/service-kit';
import { RpcError } from '@xchain/contracts';
import { e18ToMicros, priceE18FromExpo, valueFloor } from '@xchain/pricing-core';
import { RegistryCache } from '../registry/registry-cache';
import { PriceBook } from './price-book';

/** USD value of a token amount at the current price, floored to the micro, for crediting deposits. */
@Injectable()
export class Valuation {
  constructor(
    @Inject(RegistryCache) private readonly registry: RegistryCache,
    @Inject(PriceBook) private readonly prices: PriceBook,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  valueUsd(chainName: string, tokenAddress: string, amount: bigint) {
    const chain = this.registry.chain(chainName);
    const token = chain ? this.registry.token(chain, tokenAddress) : undefined;
    if (!token) throw RpcError.notFound(`${tokenAddress} is not a listed token on ${chainName}`, 'TOKEN_NOT_FOUND');
    if (!token.priceId)
      throw RpcError.unavailable(`no price source for ${token.symbol} on ${chainName}`, 'STALE_PRICE', 60, { token: token.address });
    const price = this.prices.fresh(token.priceId, this.clock.nowSecs());
    const priceE18 = priceE18FromExpo(BigInt(price.price), price.expo);
    const value = valueFloor(amount, { decimals: token.decimals, priceE18 });
    return {
      usd_micros: e18ToMicros(value).toString(),
      price_e18: priceE18.toString(),
      decimals: token.decimals,
      price_id: price.price_id,
      publish_time: price.publish_time,
    };
  }
}
