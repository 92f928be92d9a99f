import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBenchStack } from './bench-stack';
import { BOUND, PREVIEW_REQUEST } from './bodies';
import { runLoad, runOpenLoop } from './load';
import { gcs, oldGenerationGrowth } from './promotion';

/**
 * `npm run bench:promotion`: how much each service adds to its old generation under a fixed
 * quote load, the figure behind its full GCs. A throwaway stack with
 * `--trace-gc-nvp` on every service; BENCH_WARM_SECS (8) of closed loop at 32 in flight, then
 * BENCH_SECS (10) of open loop at BENCH_RATE (2000) of BENCH_OP (`preview` or `quote`); prints,
 * for each service during the open loop, the bytes its scavenges promoted, what its old generation
 * gained in all (promoted, or allocated there directly for a pretenured site) and its full GCs.
 * BENCH_BEFORE (e.g. `chains,tokens`) runs 5 s of closed loop at 32 in flight of each of those
 * reads (GetChains, ListTokens) after the warm-up, to check that they do not leave the gateway
 * promoting whole requests (pending-table.ts says why they once did). BENCH_ROOT runs another built checkout's services. Prints figures;
 * asserts nothing. Promotion varies between runs: run it a few times.
 */
const OP = process.env['BENCH_OP'] ?? 'preview';
const RATE = Number(process.env['BENCH_RATE'] ?? 2000);
const SECS = Number(process.env['BENCH_SECS'] ?? 10);
const WARM_SECS = Number(process.env['BENCH_WARM_SECS'] ?? 8);
const READS: Record<string, string> = { chains: '/json/v1/chains', tokens: '/json/v1/tokens' };
const BEFORE = (process.env['BENCH_BEFORE'] ?? '').split(',').filter(Boolean);

async function main(): Promise<void> {
  if (OP !== 'preview' && OP !== 'quote') throw new Error('BENCH_OP must be preview or quote');
  if (!(Number.isInteger(RATE) && RATE > 0)) throw new Error('BENCH_RATE must be a whole number of requests per second');
  const unknown = BEFORE.filter((name) => !(name in READS));
  if (unknown.length > 0) throw new Error(`BENCH_BEFORE takes ${Object.keys(READS).join(', ')}, not ${unknown.join(', ')}`);
  const bench = await startBenchStack({}, process.env['BENCH_ROOT'] || undefined, { SERVICE_EXTRA_NODE_FLAGS: '--trace-gc-nvp' });
  try {
    const body = OP === 'quote' ? { ...PREVIEW_REQUEST, ...BOUND } : PREVIEW_REQUEST;
    const spec = {
      url: `${bench.gatewayUrl}/json/v1/quote${OP === 'quote' ? '' : '/preview'}`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    };
    await runLoad({ ...spec, concurrency: 32, maxRequests: 1_000_000, maxSeconds: WARM_SECS });
    for (const name of BEFORE)
      await runLoad({ url: `${bench.gatewayUrl}${READS[name]}`, concurrency: 32, maxRequests: 1_000_000, maxSeconds: 5 });
    const names = [...bench.stack.services.keys()];
    const logOf = (name: string) => readFileSync(join(bench.logDir, `${name}.log`), 'utf8');
    // GCs already in each log before the counted part: those are not counted.
    let before = new Map<string, number>();
    const open = await runOpenLoop({
      ...spec,
      ratePerSec: RATE,
      maxSeconds: SECS,
      maxInFlight: 512,
      onCountStart: () => {
        before = new Map(names.map((n) => [n, gcs(logOf(n)).length]));
      },
    });
    const after = BEFORE.length > 0 ? ` after ${BEFORE.join(' and ')} at 32 in flight` : '';
    console.log(
      `${OP === 'quote' ? 'GetQuote' : 'PreviewQuote'} open loop at ${RATE}/s for ${SECS} s${after}: ${open.requests} requests, ${open.errors} errors, p99 ${open.p99Ms.toFixed(2)} ms`,
    );
    for (const name of names) {
      const counted = gcs(logOf(name)).slice(before.get(name) ?? 0);
      const young = counted.filter((g) => g.kind === 's');
      const promoted = young.reduce((sum, s) => sum + s.promoted, 0);
      const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1).padStart(5)} MB`;
      console.log(
        `  ${name.padEnd(16)} ${young.length.toString().padStart(4)} scavenges, promoted ${mb(promoted)}, old generation grew ${mb(oldGenerationGrowth(counted))}, ` +
          `${counted.filter((g) => g.kind === 'mc').length} full GCs`,
      );
    }
  } finally {
    await bench.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
