import { E18 } from './money';
import { OraclePoolPricer } from './pricers';
import type { ChainParams, FeeConfig, PricedToken, QuoteInput } from './types';

/**
 * Realistic fixtures for the specs (not exported from the index). Every fixture object is frozen:
 * the specs share them across tests and properties, so a test that wrote into one (a price moved
 * "just for this case") would change what every later case draws; frozen, such a write throws
 * where it happens instead.
 */
export const usd = (dollars: bigint, cents = 0n) => dollars * E18 + cents * 10n ** 16n;

export function token(
  chain: string,
  symbol: string,
  decimals: number,
  priceE18: bigint,
  tier: PricedToken['tier'],
  isNative = false,
): PricedToken {
  return Object.freeze({ chain, address: `${chain}:${symbol}`, symbol, decimals, tier, isNative, priceE18 });
}

export const ETH_PRICE = usd(3500n);
export const eth = {
  ethereum: token('ethereum', 'ETH', 18, ETH_PRICE, 'major', true),
  arbitrum: token('arbitrum', 'ETH', 18, ETH_PRICE, 'major', true),
};
export const usdc = {
  ethereum: token('ethereum', 'USDC', 6, usd(1n), 'stable'),
  arbitrum: token('arbitrum', 'USDC', 6, usd(1n), 'stable'),
  solana: token('solana', 'USDC', 6, usd(1n), 'stable'),
};
export const wbtc = token('ethereum', 'WBTC', 8, usd(95_000n), 'major');
export const sol = token('solana', 'SOL', 9, usd(150n), 'major', true);
export const bonk = token('solana', 'BONK', 5, 20n * 10n ** 12n, 'long_tail'); // $0.00002
export const bscUsdt = token('bsc', 'USDT', 18, usd(1n), 'stable');
export const bnb = token('bsc', 'BNB', 18, usd(600n), 'major', true);

/** The tokens property tests draw from: every tier, every chain, 5 to 18 decimals. */
export const TOKENS: readonly PricedToken[] = Object.freeze([
  usdc.ethereum,
  usdc.arbitrum,
  usdc.solana,
  eth.ethereum,
  eth.arbitrum,
  wbtc,
  sol,
  bonk,
  bscUsdt,
]);

export const chains: Readonly<Record<string, ChainParams>> = Object.freeze({
  ethereum: Object.freeze({
    name: 'ethereum',
    native: eth.ethereum,
    bridgeAsset: usdc.ethereum,
    fulfilGasNative: 150_000n * 5_000_000_000n,
    relayGasNative: 120_000n * 5_000_000_000n,
    maxGasDrop: 30_000_000_000_000_000n,
  }),
  arbitrum: Object.freeze({
    name: 'arbitrum',
    native: eth.arbitrum,
    bridgeAsset: usdc.arbitrum,
    fulfilGasNative: 400_000n * 20_000_000n,
    relayGasNative: 300_000n * 20_000_000n,
    maxGasDrop: 30_000_000_000_000_000n,
  }),
  solana: Object.freeze({
    name: 'solana',
    native: sol,
    bridgeAsset: usdc.solana,
    fulfilGasNative: 10_000n,
    relayGasNative: 10_000n,
    maxGasDrop: 600_000_000n,
  }),
  bsc: Object.freeze({
    name: 'bsc',
    native: bnb,
    bridgeAsset: bscUsdt,
    fulfilGasNative: 150_000n * 1_000_000_000n,
    relayGasNative: 0n,
    maxGasDrop: 150_000_000_000_000_000n,
  }),
});

export const feeConfig: FeeConfig = Object.freeze({
  protocolFeeBps: 5n,
  keylessSpreadBps: 10n,
  maxReferrers: 5,
  maxReferrerBpsTotal: 500n,
  minOrderUsdMicros: 1_000_000n,
  maxOrderUsdMicros: 1_000_000_000_000n,
});

export const pool = Object.freeze(
  new OraclePoolPricer({
    feeBps: 5n,
    depthE18: { stable: usd(50_000_000n), major: usd(20_000_000n), long_tail: usd(1_000_000n) },
    maxImpactBps: 1000n,
  }),
);

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

/**
 * TOKENS[i], or an error naming the index: a draw outside the list must never reach a property as
 * `undefined` (it would fail far away, as "reading 'tier'", with no trace of where it came from).
 */
export function tokenAt(i: number): PricedToken {
  const t = TOKENS[i];
  if (t === undefined) throw new RangeError(`TOKENS[${i}] does not exist (length ${TOKENS.length})`);
  return t;
}

/** Non-integer doubles, read at run time, so the modulo below is a real floating-point one. */
const X87_OPERANDS = [2_147_483_648.5, 3];
/** How many times `resetX87` found the x87 state left dirty (kept, so the modulo is never dead code). */
export let x87DirtyFound = 0;

/**
 * Runs one floating-point modulo so that the next one is right; call it before each property test.
 * On x64, V8 computes a double `%` on the x87 unit, and the litesvm native addon (the Solana
 * stand-in, which integration and e2e suites run inside the Jest worker) returns from a program run
 * with the x87 state dirty: the first double `%` after it yields NaN, and puts the state right for
 * the ones after it. fast-check draws with such a `%` (pure-rand's uniformInt on a 32-bit range),
 * so a property file that was the next to draw in a worker that had just run such a suite got the
 * index NaN, `values[NaN]`, an `undefined` token: the CI failures `[undefined, {USDC}, pool, 1n]`
 * that no seed replayed, since alone no stand-in runs in the process.
 */
export function resetX87(): void {
  if (Number.isNaN(X87_OPERANDS[0]! % X87_OPERANDS[1]!)) x87DirtyFound++;
}
