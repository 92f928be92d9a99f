import { startBenchStack } from './bench-stack';
import { formatLoad, runLoad } from './load';

/**
 * `npm run bench:tokens`: ListTokens through the gateway. Against BENCH_URL when given (a running
 * stack), else on a throwaway stack it starts and stops. Prints figures; asserts nothing.
 */
async function main(): Promise<void> {
  const given = process.env['BENCH_URL'];
  const bench = given ? undefined : await startBenchStack();
  const base = given ?? bench!.gatewayUrl;
  if (bench) console.log(`cold start (servers + migrate + seed + 5 services ready): ${(bench.coldStartMs / 1000).toFixed(1)} s`);
  try {
    const url = `${base}/json/v1/tokens`;
    await runLoad({ url, concurrency: 8, maxRequests: 500, maxSeconds: 5 }); // warm-up
    for (const concurrency of [1, 32]) {
      const r = await runLoad({ url, concurrency, maxRequests: 20_000, maxSeconds: 10 });
      console.log(formatLoad(`ListTokens, ${concurrency} in flight`, r));
    }
    const etag = (await fetch(url)).headers.get('etag') ?? '';
    const r = await runLoad({ url, concurrency: 32, maxRequests: 20_000, maxSeconds: 10, headers: { 'if-none-match': etag } });
    console.log(formatLoad('ListTokens 304 (If-None-Match), 32', r));
  } finally {
    await bench?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
