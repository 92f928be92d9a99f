import { startBenchStack } from './bench-stack';
import { TICKS_PER_SEC, ticksOf } from './cpu-split';

/**
 * `npm run bench:idle [-- <other build>]`: what each service spends with nothing asked of it (its
 * background loops: settlement passes, sweeps, refreshes), CPU ms per second over BENCH_SECS
 * (default 20) after BENCH_WARM_SECS (5) of a fresh stack. On a machine of two cores every such
 * millisecond is taken from the quote path under load. With another build's root (scripts/build-at.sh)
 * it measures that build's stack, then this one's, one after the other. Prints figures; asserts nothing.
 */
const SECS = Number(process.env['BENCH_SECS'] ?? 20);
const WARM_SECS = Number(process.env['BENCH_WARM_SECS'] ?? 5);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function idleOf(root: string | undefined): Promise<Map<string, number>> {
  const bench = await startBenchStack({}, root);
  try {
    await sleep(WARM_SECS * 1000);
    const pids = [...bench.stack.services].map(([name, m]) => [name, m.child.pid!] as const);
    const from = pids.map(([, pid]) => ticksOf(pid));
    await sleep(SECS * 1000);
    return new Map(pids.map(([name, pid], i) => [name, ((ticksOf(pid) - from[i]!) * 1000) / TICKS_PER_SEC / SECS]));
  } finally {
    await bench.stop();
  }
}

async function main(): Promise<void> {
  const other = process.argv[2];
  const sides: [string, string | undefined][] = other
    ? [
        [other, other],
        ['this build', undefined],
      ]
    : [['this build', undefined]];
  const results: [string, Map<string, number>][] = [];
  for (const [label, root] of sides) results.push([label, await idleOf(root)]);
  console.log(`CPU ms per second with nothing asked, over ${SECS} s after ${WARM_SECS} s of start`);
  const names = [...results[0]![1].keys()].sort();
  console.log(['service'.padEnd(18), ...results.map(([l]) => l.padStart(14))].join(''));
  for (const name of names)
    console.log([name.padEnd(18), ...results.map(([, r]) => (r.get(name) ?? NaN).toFixed(1).padStart(14))].join(''));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
