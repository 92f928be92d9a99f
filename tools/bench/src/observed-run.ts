import { withCpuSplit } from './cpu-split';
import { type GcSnapshot, gcOverRun } from './gc-stats';
import { type OpenLoopOptions, type OpenLoopResult, runOpenLoop } from './load';
import type { StallProbe, Stalls } from './stall-probe';

/** One open-loop run with what the machine did over its counted part. */
export interface ObservedRun {
  result: OpenLoopResult;
  /** Cores and CPU µs per request of each process group (cpu-split.ts). */
  cpu: string;
  /** The services' collections, scraped from their /metrics as it starts and after it (gc-stats.ts). */
  gc: GcSnapshot;
  /** The idle probe's stalls, when a probe was given (stall-probe.ts). */
  stalls?: Stalls;
}

/**
 * Runs one open loop and observes its counted part (the warm-up left out): each process group's
 * CPU, the services' garbage collections and, given a probe, the stalls of an idle process. The
 * speed and transport benches print these beside each run's latency.
 */
export async function observedOpenLoop(opts: OpenLoopOptions, serviceUrls: ReadonlyMap<string, string>, probe?: StallProbe): Promise<ObservedRun> {
  const gcs = gcOverRun(serviceUrls);
  const { result, cpu } = await withCpuSplit((restart) =>
    runOpenLoop({
      ...opts,
      onCountStart: () => {
        restart();
        gcs.start();
        probe?.mark();
        opts.onCountStart?.();
      },
    }),
  );
  return { result, cpu, gc: await gcs.finish(), ...(probe ? { stalls: await probe.take() } : {}) };
}
