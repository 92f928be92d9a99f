import { E18, OraclePoolPricer, type PricedToken, type QuoteInput, priceQuote } from '@xchain/pricing-core';
import { startBenchStack } from './bench-stack';
import { BOUND, PREVIEW_REQUEST } from './bodies';
import { formatLoad, runLoad } from './load';

/**
 * `npm run bench:quote`: the pure pricing core in-process, then PreviewQuote and GetQuote through
 * the gateway (against BENCH_URL when given, else a throwaway stack). Prints figures only.
 */
const tok = (chain: string, symbol: string, decimals: number, usd: bigint, tier: PricedToken['tier'], isNative = false): PricedToken => ({
  chain,
  address: `${chain}:${symbol}`,
  symbol,
  decimals,
  tier,
  isNative,
  priceE18: usd * E18,
});

function coreBench(): string {
  const eth = tok('ethereum', 'ETH', 18, 3500n, 'major', true);
  const usdcE = tok('ethereum', 'USDC', 6, 1n, 'stable');
  const usdcA = tok('arbitrum', 'USDC', 6, 1n, 'stable');
  const ethA = tok('arbitrum', 'ETH', 18, 3500n, 'major', true);
  const input: QuoteInput = {
    src: eth,
    dst: ethA,
    srcChain: {
      name: 'ethereum',
      native: eth,
      bridgeAsset: usdcE,
      fulfilGasNative: 10n ** 15n,
      relayGasNative: 10n ** 15n,
      maxGasDrop: 10n ** 17n,
    },
    dstChain: {
      name: 'arbitrum',
      native: ethA,
      bridgeAsset: usdcA,
      fulfilGasNative: 10n ** 13n,
      relayGasNative: 10n ** 13n,
      maxGasDrop: 10n ** 17n,
    },
    tradeType: 'TRADE_TYPE_EXACT_INPUT',
    amount: 10n ** 18n,
    gasDrop: 10n ** 15n,
    referrers: [{ address: '0x1', bps: 10 }],
    gasless: false,
    sponsorFees: false,
    keyless: true,
    fees: {
      protocolFeeBps: 5n,
      keylessSpreadBps: 10n,
      maxReferrers: 5,
      maxReferrerBpsTotal: 500n,
      minOrderUsdMicros: 10n ** 6n,
      maxOrderUsdMicros: 10n ** 12n,
    },
  };
  const pricer = new OraclePoolPricer({
    feeBps: 5n,
    depthE18: { stable: 5n * 10n ** 25n, major: 2n * 10n ** 25n, long_tail: 10n ** 24n },
    maxImpactBps: 1000n,
  });
  const lines: string[] = [];
  for (const tradeType of ['TRADE_TYPE_EXACT_INPUT', 'TRADE_TYPE_EXPECTED_OUTPUT'] as const) {
    const q = { ...input, tradeType, amount: tradeType === 'TRADE_TYPE_EXACT_INPUT' ? 10n ** 18n : 9n * 10n ** 17n };
    for (let i = 0; i < 2000; i++) priceQuote(q, pricer); // warm-up
    const n = tradeType === 'TRADE_TYPE_EXACT_INPUT' ? 200_000 : 5_000;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) priceQuote(q, pricer);
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    lines.push(
      `pricing core, ${tradeType.replace('TRADE_TYPE_', '').toLowerCase().padEnd(15)} ${(n / secs).toFixed(0).padStart(9)} quotes/s (${n} quotes, one core, ETH→ETH via USDC, 3 legs)`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  console.log(coreBench());
  const given = process.env['BENCH_URL'];
  const bench = given ? undefined : await startBenchStack();
  const base = given ?? bench!.gatewayUrl;
  try {
    const request = PREVIEW_REQUEST;
    const headers = { 'content-type': 'application/json' };
    const preview = { url: `${base}/json/v1/quote/preview`, method: 'POST' as const, headers, body: JSON.stringify(request) };
    const quote = { ...preview, url: `${base}/json/v1/quote`, body: JSON.stringify({ ...request, ...BOUND }) };
    await runLoad({ ...preview, concurrency: 8, maxRequests: 300, maxSeconds: 5 }); // warm-up
    for (const [label, spec] of [
      ['PreviewQuote', preview],
      ['GetQuote (stores)', quote],
    ] as const) {
      for (const concurrency of [1, 32]) {
        console.log(
          formatLoad(`${label}, ${concurrency} in flight`, await runLoad({ ...spec, concurrency, maxRequests: 20_000, maxSeconds: 10 })),
        );
      }
    }
  } finally {
    await bench?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
