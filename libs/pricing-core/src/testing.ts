import { E18 } from './money';
import { OraclePoolPricer } from './pricers';
import type { ChainParams, FeeConfig, PricedToken, QuoteInput } from './types';

/** Realistic fixtures for the specs (not exported from the index). */
export const usd = (dollars: bigint, cents = 0n) => dollars * E18 + cents * 10n ** 16n;

export function token(chain: string, symbol: string, decimals: number, priceE18: bigint, tier: PricedToken['tier'], isNative = false): PricedToken {
  return { chain, address: `${chain}:${symbol}`, symbol, decimals, tier, isNative, priceE18 };
}

export const ETH_PRICE = usd(3500n);
export const eth = { ethereum: token('ethereum', 'ETH', 18, ETH_PRICE, 'major', true), arbitrum: token('arbitrum', 'ETH', 18, ETH_PRICE, 'major', true) };
export const usdc = { ethereum: token('ethereum', 'USDC', 6, usd(1n), 'stable'), arbitrum: token('arbitrum', 'USDC', 6, usd(1n), 'stable'), solana: token('solana', 'USDC', 6, usd(1n), 'stable') };
export const wbtc = token('ethereum', 'WBTC', 8, usd(95_000n), 'major');
export const sol = token('solana', 'SOL', 9, usd(150n), 'major', true);
export const bonk = token('solana', 'BONK', 5, 20n * 10n ** 12n, 'long_tail'); // $0.00002
export const bscUsdt = token('bsc', 'USDT', 18, usd(1n), 'stable');
export const bnb = token('bsc', 'BNB', 18, usd(600n), 'major', true);

export const chains: Record<string, ChainParams> = {
  ethereum: { name: 'ethereum', native: eth.ethereum, bridgeAsset: usdc.ethereum, fulfilGasNative: 150_000n * 5_000_000_000n, relayGasNative: 120_000n * 5_000_000_000n, maxGasDrop: 30_000_000_000_000_000n },
  arbitrum: { name: 'arbitrum', native: eth.arbitrum, bridgeAsset: usdc.arbitrum, fulfilGasNative: 400_000n * 20_000_000n, relayGasNative: 300_000n * 20_000_000n, maxGasDrop: 30_000_000_000_000_000n },
  solana: { name: 'solana', native: sol, bridgeAsset: usdc.solana, fulfilGasNative: 10_000n, relayGasNative: 10_000n, maxGasDrop: 600_000_000n },
  bsc: { name: 'bsc', native: bnb, bridgeAsset: bscUsdt, fulfilGasNative: 150_000n * 1_000_000_000n, relayGasNative: 0n, maxGasDrop: 150_000_000_000_000_000n },
};

export const feeConfig: FeeConfig = {
  protocolFeeBps: 5n,
  keylessSpreadBps: 10n,
  maxReferrers: 5,
  maxReferrerBpsTotal: 500n,
  minOrderUsdMicros: 1_000_000n,
  maxOrderUsdMicros: 1_000_000_000_000n,
};

export const pool = new OraclePoolPricer({
  feeBps: 5n,
  depthE18: { stable: usd(50_000_000n), major: usd(20_000_000n), long_tail: usd(1_000_000n) },
  maxImpactBps: 1000n,
});

export function input(over: Partial<QuoteInput> & Pick<QuoteInput, 'src' | 'dst'>): QuoteInput {
  return {
    srcChain: chains[over.src.chain]!,
    dstChain: chains[over.dst.chain]!,
    tradeType: 'TRADE_TYPE_EXACT_INPUT',
    amount: 1_000_000_000n,
    gasDrop: 0n,
    referrers: [],
    gasless: false,
    sponsorFees: false,
    keyless: false,
    fees: feeConfig,
    ...over,
  };
}
