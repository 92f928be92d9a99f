import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import { Redis } from 'ioredis';
import { startBenchStack } from './bench-stack';
import { PREVIEW_REQUEST } from './bodies';
import { formatLoad, runLoad, type LoadOptions, type LoadResult } from './load';
import { median } from './median';

/**
 * `npm run bench:auth`: what authentication and rate limiting cost on a public request. One
 * throwaway stack; the same operations with and without an API key, interleaved in one run, plus
 * an unknown key (refused: a cached miss and the IP budget) and the bare Redis round trip that each
 * rate-limit decision makes. Prints figures only.
 */
function admin(env: NodeJS.ProcessEnv, ...args: string[]): { key: { id: string }; secret: string } {
  return JSON.parse(
    execFileSync(process.execPath, [join(ROOT, 'dist/tools/partner-admin/src/main.js'), ...args], {
      env,
      encoding: 'utf8',
      timeout: 20_000,
    }),
  );
}

async function redisRoundTrips(url: string, prefix: string): Promise<string> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  // The shape of one fixed-window decision: INCRBY and a TTL on first use, in one script (as the
  // gateway's Redis user, with its commands and on its prefix).
  const script =
    "local n = redis.call('incrby', KEYS[1], ARGV[1]) if n == tonumber(ARGV[1]) then redis.call('expire', KEYS[1], 60) end return {n, redis.call('pttl', KEYS[1])}";
  const lines: string[] = [];
  for (const inFlight of [1, 32]) {
    const n = 20_000;
    let next = 0;
    const t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next++ < n) await redis.eval(script, 1, `${prefix}:bench`, '1');
      }),
    );
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    lines.push(
      `Redis rate-limit script, ${String(inFlight).padStart(2)} in flight ${(n / secs).toFixed(0).padStart(8)} calls/s  (${((secs / n) * 1000 * inFlight).toFixed(3)} ms each)`,
    );
  }
  redis.disconnect();
  return lines.join('\n');
}

async function main(): Promise<void> {
  const bench = await startBenchStack();
  try {
    const env: NodeJS.ProcessEnv = { ...bench.stack.env, ...bench.stack.bus.envFor('operator') }; // the operator's NATS user (D14)
    admin(env, 'create-partner', '--email', 'bench@example.com');
    const key = admin(env, 'create-key', '--email', 'bench@example.com', '--name', 'bench');
    admin(env, 'set-tier', '--key-id', key.key.id, '--tier', 'bench', '--points-per-min', '1000000');
    const base = bench.gatewayUrl;
    const request = PREVIEW_REQUEST;
    const preview: LoadOptions = {
      url: `${base}/json/v1/quote/preview`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
      concurrency: 1,
      maxRequests: 0,
      maxSeconds: 0,
    };
    const chains: LoadOptions = { url: `${base}/json/v1/chains`, headers: {}, concurrency: 1, maxRequests: 0, maxSeconds: 0 };
    const withKey = (o: LoadOptions, k: string): LoadOptions => ({ ...o, headers: { ...o.headers, 'x-api-key': k } });
    await runLoad({ ...preview, concurrency: 8, maxRequests: 500, maxSeconds: 5 }); // warm-up
    await runLoad({ ...withKey(preview, key.secret), concurrency: 8, maxRequests: 500, maxSeconds: 5 });
    const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
    const summary: string[] = [];
    for (const [label, spec] of [
      ['GetChains', chains],
      ['PreviewQuote', preview],
    ] as const) {
      for (const concurrency of [1, 32]) {
        const runs: Record<'keyless' | 'API key', LoadResult[]> = { keyless: [], 'API key': [] };
        // Interleaved, the order flipped every round, so drift over the run hits both alike.
        for (let round = 1; round <= rounds; round++) {
          const order = [
            ['keyless', spec],
            ['API key', withKey(spec, key.secret)],
          ] as const;
          for (const [who, s] of round % 2 === 1 ? order : [...order].reverse()) {
            const r = await runLoad({ ...s, concurrency, maxRequests: 20_000, maxSeconds: 5 });
            runs[who].push(r);
            console.log(formatLoad(`${label}, ${who}, ${concurrency} in flight #${round}`, r));
          }
        }
        const keyless = medianOf(runs.keyless);
        const keyed = medianOf(runs['API key']);
        summary.push(
          `${`${label}, ${concurrency} in flight`.padEnd(26)} median of ${rounds}: keyless ${keyless.perSecond.toFixed(0)} req/s (p50 ${keyless.p50Ms.toFixed(2)} ms), ` +
            `API key ${keyed.perSecond.toFixed(0)} req/s (p50 ${keyed.p50Ms.toFixed(2)} ms): ${(((keyed.perSecond - keyless.perSecond) / keyless.perSecond) * 100).toFixed(1)}% throughput with a key`,
        );
      }
    }
    console.log(summary.join('\n'));
    const unknown = await runLoad({ ...withKey(chains, 'xk_not-a-key'), concurrency: 32, maxRequests: 20_000, maxSeconds: 6 });
    console.log(formatLoad('GetChains, unknown key (401), 32 in flight', unknown), JSON.stringify(unknown.statuses));
    console.log(await redisRoundTrips(bench.stack.envFor('gateway')['REDIS_URL']!, bench.stack.env['RATE_LIMIT_PREFIX'] ?? 'rl'));
  } finally {
    await bench.stop();
  }
}

/** Median throughput and median p50 over rounds (each median taken on its own). */
function medianOf(results: LoadResult[]): { perSecond: number; p50Ms: number } {
  return { perSecond: median(results.map((r) => r.perSecond)), p50Ms: median(results.map((r) => r.p50Ms)) };
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
