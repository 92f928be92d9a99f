import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, type ServiceSpec } from '@xchain/stack';
import { benchOp, envOf, opRequest } from './bench-ops';
import { startBenchStack } from './bench-stack';
import { TICKS_PER_SEC, ticksOf } from './cpu-split';
import { loadClientName, runLoad, runOpenLoop } from './load';
import { type Slice, sliceOrder, summarizePairs } from './paired';
import type { RawRequestSpec } from './raw-http';

/**
 * `npm run bench:paired -- <built checkout>`: what a change does to the CPU each service spends per
 * request, with the machine's drift taken out. Both builds' stacks run at once, side by side (the
 * given checkout as "before", this one as "after"); the load goes to one at a time, in slices of
 * BENCH_SECS (default 3) that alternate before/after, after/before, … for BENCH_PAIRS pairs
 * (default 10). Each slice reads the watched services' CPU from /proc. Prints each pair, each
 * side's medians, and the median of the paired differences with how many pairs the after side
 * won. BENCH_RATE (req/s) loads an open loop at that fixed rate; without it, a closed loop at 32
 * in flight (where CPU per request also moves with throughput, as more requests share a wake-up).
 * BENCH_OP as bench:transport; BENCH_SERVICES (default `gateway,quote-engine`);
 * BENCH_BEFORE_ENV / BENCH_AFTER_ENV as bench:transport (`-- .` compares two configurations).
 * Prints figures; asserts nothing.
 *
 * Two stacks of one build are not quite alike, and the difference holds for the whole run, so the
 * pairs won within one run overstate how sure a result is: count a change only if it shows both
 * ways (BENCH_AFTER_FIRST=1 starts the after side's stack first).
 *
 * Why not bench:transport for this: a fresh stack's CPU per request drifts from one round to the
 * next by more than a small change; slices a few seconds apart drift less.
 */
const SECS = Number(process.env['BENCH_SECS'] ?? 3);
const PAIRS = Number(process.env['BENCH_PAIRS'] ?? 10);
const RATE = process.env['BENCH_RATE'] ? Number(process.env['BENCH_RATE']) : undefined;
const SERVICES = (process.env['BENCH_SERVICES'] ?? 'gateway,quote-engine').split(',').filter(Boolean);
const OP = benchOp();
/** Start the after side's stack first (BENCH_AFTER_FIRST=1): run it both ways to see a bias of the start order. */
const AFTER_FIRST = process.env['BENCH_AFTER_FIRST'] === '1';

interface Side {
  request: RawRequestSpec;
  pids: number[];
  slices: Slice[];
  stop: () => Promise<void>;
}

async function startSide(root: string, env: NodeJS.ProcessEnv): Promise<Side> {
  const bench = await startBenchStack({}, root, env);
  const pids = SERVICES.map((svc) => bench.stack.services.get(svc as ServiceSpec['name'])?.child.pid);
  const missing = SERVICES.filter((_, i) => pids[i] === undefined);
  if (missing.length > 0) {
    await bench.stop();
    throw new Error(`BENCH_SERVICES: no running service ${missing.join(', ')}`);
  }
  return { request: opRequest(bench.gatewayUrl, OP), pids: pids as number[], slices: [], stop: bench.stop };
}

async function slice(side: Side): Promise<Slice & { errors: number }> {
  const before = side.pids.map((pid) => ticksOf(pid));
  const r = RATE
    ? await runOpenLoop({ ...side.request, ratePerSec: RATE, maxInFlight: 512, maxSeconds: SECS, warmSeconds: 0.5 })
    : await runLoad({ ...side.request, concurrency: 32, maxRequests: 10_000_000, maxSeconds: SECS });
  const cpuUs = side.pids.map((pid, i) => ((ticksOf(pid) - before[i]!) * (1e6 / TICKS_PER_SEC)) / Math.max(1, r.requests));
  return { perSecond: r.perSecond, p99Ms: r.p99Ms, cpuUs, errors: r.errors };
}

const us = (x: number) => x.toFixed(1);
const show = (s: Slice) =>
  `${s.perSecond.toFixed(0).padStart(6)} req/s  p99 ${s.p99Ms.toFixed(1).padStart(5)} ms  ${SERVICES.map((n, i) => `${n} ${us(s.cpuUs[i]!)} µs`).join(', ')}`;

async function main(): Promise<void> {
  const beforeRoot = resolve(process.argv[2] ?? '');
  if (!existsSync(join(beforeRoot, 'dist/apps/gateway/src/main.js'))) {
    throw new Error('usage: npm run bench:paired -- <a built checkout to compare with> (see scripts/build-at.sh)');
  }
  const envs = { before: process.env['BENCH_BEFORE_ENV'], after: process.env['BENCH_AFTER_ENV'] };
  console.log(
    `paired bench: before = ${beforeRoot}${envs.before ? ` (${envs.before})` : ''}, after = ${ROOT}${envs.after ? ` (${envs.after})` : ''}; ` +
      `${OP.label}, ${RATE ? `open loop at ${RATE} req/s` : 'closed loop at 32 in flight'}, ${PAIRS} pairs of ${SECS} s slices, both stacks up at once, the ${AFTER_FIRST ? 'after' : 'before'} side's started first (client: ${loadClientName()})`,
  );
  const start = { before: () => startSide(beforeRoot, envOf(envs.before)), after: () => startSide(ROOT, envOf(envs.after)) };
  const [firstName, secondName] = AFTER_FIRST ? (['after', 'before'] as const) : (['before', 'after'] as const);
  const first = await start[firstName]();
  const second = await start[secondName]().catch(async (err: unknown) => {
    await first.stop(); // the first stack must not outlive a second that failed to start
    throw err;
  });
  const sides = AFTER_FIRST ? { before: second, after: first } : { before: first, after: second };
  try {
    for (const side of [sides.before, sides.after]) await slice(side); // warm-up, not counted
    for (let pair = 0; pair < PAIRS; pair++) {
      for (const name of sliceOrder(pair)) {
        const { errors, ...s } = await slice(sides[name]);
        if (errors) console.log(`  (${name}: ${errors} errors in this slice)`);
        sides[name].slices.push(s);
      }
      console.log(
        `  pair ${String(pair + 1).padStart(2)}  before ${show(sides.before.slices[pair]!)}\n           after  ${show(sides.after.slices[pair]!)}`,
      );
    }
    const sum = summarizePairs(sides.before.slices, sides.after.slices);
    console.log(`\nmedians   before ${show(sum.before)}\n          after  ${show(sum.after)}`);
    console.log(`paired: after ÷ before throughput ${sum.throughputRatio.toFixed(3)} (median of pairs)`);
    SERVICES.forEach((n, i) =>
      console.log(
        `  ${n}: after − before ${sum.cpuDeltaUs[i]! >= 0 ? '+' : ''}${us(sum.cpuDeltaUs[i]!)} µs per request (median of pairs); after lower in ${sum.afterLower[i]} of ${sum.pairs}`,
      ),
    );
  } finally {
    await sides.before.stop();
    await sides.after.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
