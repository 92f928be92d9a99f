import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT } from '@xchain/stack';
import { startBenchStack } from './bench-stack';
import { benchOp, envOf, opRequest } from './bench-ops';
import { PREVIEW_REQUEST } from './bodies';
import { withCpuSplit } from './cpu-split';
import { type GcSnapshot, formatGc, majorGcs } from './gc-stats';
import { type LoadResult, loadClientName, runLoad } from './load';
import { observedOpenLoop } from './observed-run';
import { CEILING_USER, startCeiling } from './speed-ceiling';

/**
 * `npm run bench:transport -- <built checkout>`: PreviewQuote through two builds of the services,
 * side by side in one run — the given checkout ("before", e.g. the commit before a transport
 * change, built with `scripts/build-at.sh`) and this one ("after"). Rounds alternate the builds
 * (before, after, before, after, …), each on a fresh stack with its own ceiling measured around
 * it, so a machine that gets busier moves both. Closed loop at 32 in flight, then open loop at one
 * fixed rate for both builds (default: half the lower saturating rate of round 1). Prints figures;
 * asserts nothing. BENCH_ROUNDS (default 2), BENCH_SECS (default 5), BENCH_RATE (optional).
 * BENCH_BEFORE_ENV / BENCH_AFTER_ENV (`K=V,K=V`) give each side's services extra environment, so the
 * same build can be compared with itself under two configurations (`-- .` as the before).
 * BENCH_OP=quote measures GetQuote (stored before it is answered) instead of PreviewQuote;
 * BENCH_OP=tokens ListTokens, BENCH_OP=chains GetChains. Each
 * closed-loop run also prints the cores each process group used and its system calls per request
 * (cpu-split.ts).
 */
const SECS = Number(process.env['BENCH_SECS'] ?? 5);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2);
const PREVIEW = JSON.stringify(PREVIEW_REQUEST);
const JSON_HEADERS = { 'content-type': 'application/json' };
const OP = benchOp();

interface Sample {
  ceiling: number;
  closed: LoadResult;
  open?: LoadResult;
  /** The services' garbage collections during the open-loop run's counted part. */
  openGc?: GcSnapshot;
  /**
   * Cores and CPU µs per request of each process group during that counted part: both sides at the
   * same rate, so a change in what a request costs shows here without the throughput's noise.
   */
  openCpu?: string;
  /** Cores each process group used during the closed-loop run of the operation, and CPU µs per request. */
  cpu: string;
  /** Write and read system calls per request of each process group during that run. */
  io: string;
}

async function measure(root: string, rate: number | undefined, env: NodeJS.ProcessEnv): Promise<Sample> {
  const bench = await startBenchStack(
    { [CEILING_USER]: { publish: ['bench.echo.>'], subscribe: ['bench.echo.>'], allowResponses: true } },
    root,
    env,
  );
  const ceiling = await startCeiling(bench.stack.env['NATS_URL']!, bench.stack.bus.credentials(CEILING_USER));
  try {
    const preview = opRequest(bench.gatewayUrl, OP);
    const echo = { url: ceiling.url, method: 'POST' as const, headers: JSON_HEADERS, body: PREVIEW };
    for (const spec of [echo, preview]) await runLoad({ ...spec, concurrency: 8, maxRequests: 3000, maxSeconds: 3 }); // warm-up
    const c1 = await runLoad({ ...echo, concurrency: 32, maxRequests: 200_000, maxSeconds: SECS });
    const {
      result: closed,
      cpu,
      io,
    } = await withCpuSplit(() => runLoad({ ...preview, concurrency: 32, maxRequests: 200_000, maxSeconds: SECS }));
    const c2 = await runLoad({ ...echo, concurrency: 32, maxRequests: 200_000, maxSeconds: SECS });
    if (!rate) return { ceiling: (c1.perSecond + c2.perSecond) / 2, closed, cpu, io };
    const open = await observedOpenLoop({ ...preview, ratePerSec: rate, maxSeconds: SECS, maxInFlight: 512 }, bench.serviceUrls);
    return { ceiling: (c1.perSecond + c2.perSecond) / 2, closed, cpu, io, open: open.result, openGc: open.gc, openCpu: open.cpu };
  } finally {
    await ceiling.stop();
    await bench.stop();
  }
}

const f = (x: number, w = 7) => x.toFixed(x >= 100 ? 0 : 2).padStart(w);

function line(label: string, s: Sample): string {
  const share = `${((100 * s.closed.perSecond) / s.ceiling).toFixed(0).padStart(3)} %`;
  const gcs = s.openGc ? `  full GCs ${majorGcs(s.openGc)}` : '';
  const open = s.open
    ? `   open p50 ${f(s.open.p50Ms)} ms  p99 ${f(s.open.p99Ms)} ms${gcs}${s.open.errors ? `  ${s.open.errors} errors` : ''}`
    : '';
  const bad = s.closed.errors ? `  ${s.closed.errors} errors ${JSON.stringify(s.closed.statuses)}` : '';
  return `  ${label.padEnd(12)} ceiling ${f(s.ceiling)} req/s   ${OP.label} ${f(s.closed.perSecond)} req/s = ${share}   closed p99 ${f(s.closed.p99Ms)} ms${open}${bad}`;
}

async function main(): Promise<void> {
  const before = resolve(process.argv[2] ?? process.env['BENCH_BEFORE_ROOT'] ?? '');
  if (!existsSync(join(before, 'dist/apps/gateway/src/main.js'))) {
    throw new Error('usage: npm run bench:transport -- <a built checkout to compare with> (see scripts/build-at.sh)');
  }
  const sides = ['BEFORE', 'AFTER'].map((s) => (process.env[`BENCH_${s}_ENV`] ? ` (${process.env[`BENCH_${s}_ENV`]})` : ''));
  console.log(
    `transport bench: before = ${before}${sides[0]}, after = ${ROOT}${sides[1]}; ${ROUNDS} rounds, ${SECS} s per run, load generator on the same cores (client: ${loadClientName()})`,
  );
  let rate = process.env['BENCH_RATE'] ? Number(process.env['BENCH_RATE']) : undefined;
  const rows: [string, Sample][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const b = await measure(before, rate, envOf(process.env['BENCH_BEFORE_ENV']));
    console.log(line(`before #${round}`, b));
    console.log(`    cores used (CPU per request): ${b.cpu}`);
    console.log(`    system calls per request: ${b.io}`);
    if (b.openGc) console.log(`    garbage collections in the open-loop run (count, sum of pauses): ${formatGc(b.openGc)}`);
    if (b.openCpu) console.log(`    in the open-loop run, cores used (CPU per request): ${b.openCpu}`);
    const a = await measure(ROOT, rate, envOf(process.env['BENCH_AFTER_ENV']));
    console.log(line(`after #${round}`, a));
    console.log(`    cores used (CPU per request): ${a.cpu}`);
    console.log(`    system calls per request: ${a.io}`);
    if (a.openGc) console.log(`    garbage collections in the open-loop run (count, sum of pauses): ${formatGc(a.openGc)}`);
    if (a.openCpu) console.log(`    in the open-loop run, cores used (CPU per request): ${a.openCpu}`);
    rows.push([`before #${round}`, b], [`after #${round}`, a]);
    if (rate === undefined) {
      rate = Math.max(1, Math.round(Math.min(b.closed.perSecond, a.closed.perSecond) / 2));
      console.log(`  (open loop from round 2 on at ${rate} req/s, half the lower saturating rate)`);
    }
  }
  const mean = (which: string, pick: (s: Sample) => number | undefined) => {
    const xs = rows
      .filter(([l]) => l.startsWith(which))
      .map(([, s]) => pick(s))
      .filter((x): x is number => x !== undefined);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
  };
  console.log('\nmean over rounds              before      after');
  const show = (label: string, pick: (s: Sample) => number | undefined, unit: string) =>
    console.log(`  ${label.padEnd(26)} ${f(mean('before', pick), 9)} ${f(mean('after', pick), 10)}  ${unit}`);
  show(`${OP.label} throughput`, (s) => s.closed.perSecond, 'req/s (32 in flight)');
  show('share of ceiling', (s) => (100 * s.closed.perSecond) / s.ceiling, '%');
  show('closed-loop p99', (s) => s.closed.p99Ms, 'ms');
  show(`open-loop p50 @ ${rate}/s`, (s) => s.open?.p50Ms, 'ms');
  show(`open-loop p99 @ ${rate}/s`, (s) => s.open?.p99Ms, 'ms');
  show('full GCs per open-loop run', (s) => (s.openGc ? majorGcs(s.openGc) : undefined), 'all services together');
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
