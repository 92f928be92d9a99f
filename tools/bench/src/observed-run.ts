import { withCpuSplit } from './cpu-split';
import { type GcSnapshot, gcOverRun } from './gc-stats';
import { type OpenLoopOptions, type OpenLoopResult, runOpenLoop } from './load';
import type { StallProbe, Stalls } from './stall-probe';

/** One open-loop run with what the machine did over its counted part. */
export interface ObservedRun {
  result: OpenLoopResult;
  /** Cores and CPU µs per request of each process group (cpu-split.ts). */
  cpu: string;
  /** The services' collections over the whole run, its warm-up included (gc-stats.ts). */
  gc: GcSnapshot;
  /** The idle probe's stalls, when a probe was given (stall-probe.ts). */
  stalls?: Stalls;
}

/**
 * Runs one open loop and observes it: over its counted part (the warm-up left out), each process
 * group's CPU and, given a probe, the stalls of an idle process; over the whole run, the services'
 * garbage collections. The speed and transport benches print these beside each run's latency.
 *
 * The collections are read from every service's /metrics, and a scrape is work for the service,
 * all five at once: scraped as the counted part began, that burst would hold up the first requests
 * counted and raise the p99. So the first scrape is made as the warm-up starts.
 */
export async function observedOpenLoop(
  opts: OpenLoopOptions,
  serviceUrls: ReadonlyMap<string, string>,
  probe?: StallProbe,
): Promise<ObservedRun> {
  const gcs = gcOverRun(serviceUrls);
  gcs.start();
  const { result, cpu } = await withCpuSplit((restart) =>
    runOpenLoop({
      ...opts,
      onCountStart: () => {
        restart();
        probe?.mark();
        opts.onCountStart?.();
      },
    }),
  );
  return { result, cpu, gc: await gcs.finish(), ...(probe ? { stalls: await probe.take() } : {}) };
}
