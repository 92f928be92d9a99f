import { E18, OraclePoolPricer, type PricedToken, type QuoteInput, type TradeType, priceQuote } from '@xchain/pricing-core';

/**
 * `npm run bench:pricing`: the pure pricing core on one core, in-process, per trade type, over a
 * spread of routes and sizes (so no single lucky input sets the figure). No stack, no I/O: this
 * is the ceiling our own code puts under PreviewQuote and GetQuote. Prints figures only.
 *
 * BENCH_SECONDS (default 2) is the measured time per trade type, after a 0.5 s warm-up. The
 * figure is quotes per second of this process's CPU time (one thread prices, so that is one core),
 * which other load on a shared machine barely moves; wall-clock quotes/s is printed beside it.
 */
const tok = (
  chain: string,
  symbol: string,
  decimals: number,
  priceE18: bigint,
  tier: PricedToken['tier'],
  isNative = false,
): PricedToken => ({
  chain,
  address: `${chain}:${symbol}`,
  symbol,
  decimals,
  tier,
  isNative,
  priceE18,
});

const eth = tok('ethereum', 'ETH', 18, 3500n * E18, 'major', true);
const usdcE = tok('ethereum', 'USDC', 6, E18, 'stable');
const wbtc = tok('ethereum', 'WBTC', 8, 95_000n * E18, 'major');
const ethA = tok('arbitrum', 'ETH', 18, 3500n * E18, 'major', true);
const usdcA = tok('arbitrum', 'USDC', 6, E18, 'stable');
const sol = tok('solana', 'SOL', 9, 150n * E18, 'major', true);
const usdcS = tok('solana', 'USDC', 6, E18, 'stable');
const bonk = tok('solana', 'BONK', 5, 20n * 10n ** 12n, 'long_tail');

const chains = {
  ethereum: {
    name: 'ethereum',
    native: eth,
    bridgeAsset: usdcE,
    fulfilGasNative: 10n ** 15n,
    relayGasNative: 6n * 10n ** 14n,
    maxGasDrop: 10n ** 17n,
  },
  arbitrum: {
    name: 'arbitrum',
    native: ethA,
    bridgeAsset: usdcA,
    fulfilGasNative: 10n ** 13n,
    relayGasNative: 6n * 10n ** 12n,
    maxGasDrop: 10n ** 17n,
  },
  solana: {
    name: 'solana',
    native: sol,
    bridgeAsset: usdcS,
    fulfilGasNative: 10_000n,
    relayGasNative: 10_000n,
    maxGasDrop: 6n * 10n ** 8n,
  },
};
type ChainName = keyof typeof chains;

const fees = {
  protocolFeeBps: 5n,
  keylessSpreadBps: 10n,
  maxReferrers: 5,
  maxReferrerBpsTotal: 500n,
  minOrderUsdMicros: 10n ** 6n,
  maxOrderUsdMicros: 10n ** 12n,
};
const pricer = new OraclePoolPricer({
  feeBps: 5n,
  depthE18: { stable: 5n * 10n ** 25n, major: 2n * 10n ** 25n, long_tail: 10n ** 24n },
  maxImpactBps: 1000n,
});

/** Routes as partners ask for them: 3-leg cross-chain, 2-leg, 1-leg same chain; USD sizes $10 … $200k. */
const ROUTES: { src: PricedToken; dst: PricedToken; label: string }[] = [
  { src: eth, dst: ethA, label: 'ETH→ETH(arb)' },
  { src: usdcE, dst: sol, label: 'USDC→SOL' },
  { src: wbtc, dst: bonk, label: 'WBTC→BONK' },
  { src: eth, dst: usdcE, label: 'ETH→USDC same chain' },
];
const USD_SIZES = [10n, 250n, 3_000n, 40_000n, 200_000n];

function inputs(tradeType: TradeType): QuoteInput[] {
  const out: QuoteInput[] = [];
  for (const { src, dst } of ROUTES) {
    for (const usd of USD_SIZES) {
      const side = tradeType.startsWith('TRADE_TYPE_EXACT_INPUT') ? src : dst;
      out.push({
        src,
        dst,
        srcChain: chains[src.chain as ChainName],
        dstChain: chains[dst.chain as ChainName],
        tradeType,
        amount: (usd * E18 * 10n ** BigInt(side.decimals)) / side.priceE18,
        gasDrop: usd >= 250n ? chains[dst.chain as ChainName].maxGasDrop / 100n : 0n,
        referrers: [{ address: '0x1', bps: 10 }],
        gasless: usd === 3_000n,
        sponsorFees: false,
        keyless: true,
        fees,
      });
    }
  }
  return out;
}

/** Quotes per CPU second and per wall second over `seconds` of CPU, cycling through `qs`; clocks read per 5000 quotes. */
function rate(qs: QuoteInput[], seconds: number): { perCpuSecond: number; perWallSecond: number; count: number } {
  let count = 0;
  const cpu0 = process.cpuUsage();
  const wall0 = process.hrtime.bigint();
  const budgetMicros = seconds * 1e6;
  let cpuMicros = 0;
  while (cpuMicros < budgetMicros) {
    for (let i = 0; i < 5000; i++) priceQuote(qs[(count + i) % qs.length]!, pricer);
    count += 5000;
    const used = process.cpuUsage(cpu0);
    cpuMicros = used.user + used.system;
  }
  const wallNanos = Number(process.hrtime.bigint() - wall0);
  return { perCpuSecond: (count * 1e6) / cpuMicros, perWallSecond: (count * 1e9) / wallNanos, count };
}

function main(): void {
  const seconds = Number(process.env['BENCH_SECONDS'] ?? '2');
  if (!(seconds > 0)) throw new Error('BENCH_SECONDS must be a positive number');
  console.log(`pricing core, one core, ${ROUTES.length} routes × ${USD_SIZES.length} sizes ($10 … $200k), ${seconds} s per trade type`);
  const types: TradeType[] = ['TRADE_TYPE_EXACT_INPUT', 'TRADE_TYPE_EXPECTED_OUTPUT', 'TRADE_TYPE_EXACT_OUTPUT'];
  for (const tradeType of types) {
    const qs = inputs(tradeType);
    for (const q of qs) priceQuote(q, pricer); // every input prices (a refusal would measure an error path)
    rate(qs, 0.5); // warm-up
    const { perCpuSecond, perWallSecond, count } = rate(qs, seconds);
    const name = tradeType.replace('TRADE_TYPE_', '').toLowerCase().padEnd(16);
    console.log(
      `  ${name} ${perCpuSecond.toFixed(0).padStart(9)} quotes/s of CPU (${perWallSecond.toFixed(0)} per wall second, ${count} quotes)`,
    );
  }
}

main();
