import { readFileSync, readdirSync } from 'node:fs';
import type { LoadResult } from './load';

/**
 * Where a run's CPU went, per process group, read from /proc (Linux only): utime + stime of every
 * process on the machine, grouped by a label taken from its command line. PostgreSQL forks a
 * backend per connection, so its processes are summed into one group; so are the load
 * generator's. A benchmark prints this next to its throughput so a change can be aimed at the
 * process that actually spends the cores.
 */
export const TICKS_PER_SEC = 100; // USER_HZ on Linux, for every architecture Node runs on there

/**
 * CPU ticks used so far by each process the benchmark cares about, by pid with its group, and by
 * the whole machine. Kept per process, not per group: a process that ends between two snapshots
 * (a PostgreSQL autovacuum worker, a backend of a closed connection) must not take the ticks it
 * had before the run off its group's figure for the run.
 */
export interface CpuSnapshot {
  processes: Map<string, { group: string; ticks: number }>;
  busy: number;
}

/** Names a process by what it runs; null for processes the benchmark does not care about. */
function groupOf(cmdline: string, pid: number): string | null {
  if (pid === process.pid) return 'load generator';
  if (/postgres/.test(cmdline)) return 'postgres';
  if (/nats-server/.test(cmdline)) return 'nats';
  if (/redis-server/.test(cmdline)) return 'redis';
  const app = /dist\/apps\/([a-z-]+)\//.exec(cmdline);
  if (app) return app[1]!;
  const ceiling = /speed-ceiling\.js\0(http|echo)/.exec(cmdline);
  if (ceiling) return `ceiling ${ceiling[1]}`;
  if (/anvil|solana-standin/.test(cmdline)) return 'chains';
  return null;
}

/** CPU ticks (user + system, every thread) a process has used so far; throws once it has ended. */
export function ticksOf(pid: string | number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command: state is field 3, utime 14, stime 15.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(rest[11]) + Number(rest[12]);
}

/**
 * Calls `visit` with each running process the benchmark cares about and its group. A process that
 * ends between the listing and a read (or is not ours to read) is skipped.
 */
function forEachGrouped(visit: (group: string, pid: string) => void): void {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const group = groupOf(readFileSync(`/proc/${pid}/cmdline`, 'utf8'), Number(pid));
      if (group) visit(group, pid);
    } catch {
      // gone, or not readable
    }
  }
}

/** CPU ticks used so far by each process of a group, and by the whole machine (from /proc/stat). */
export function cpuSnapshot(): CpuSnapshot {
  const processes = new Map<string, { group: string; ticks: number }>();
  forEachGrouped((group, pid) => processes.set(pid, { group, ticks: ticksOf(pid) }));
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { processes, busy: cpu.reduce((a, b) => a + b, 0) - cpu[3]! - cpu[4]! }; // minus idle and iowait
}

/**
 * Cores used by each group between two snapshots, busiest first (the whole machine as 'all
 * busy'), as "group 0.62" pairs; given the requests served in between, also CPU µs per request
 * ("group 0.62 = 251 µs"), a figure that moves far less than throughput on a noisy machine. A
 * process that started in between counts whole. One that ended in between counts nothing: its
 * ticks during the run are lost with it, so a group whose processes churn (PostgreSQL's
 * autovacuum workers) reads somewhat low, never below zero.
 */
export function cpuSplit(from: CpuSnapshot, to: CpuSnapshot, seconds: number, requests?: number): string {
  const ticks = new Map<string, number>([['all busy', to.busy - from.busy]]);
  for (const [pid, { group, ticks: now }] of to.processes) {
    const before = from.processes.get(pid);
    const used = before?.group === group ? now - before.ticks : now;
    ticks.set(group, (ticks.get(group) ?? 0) + used);
  }
  return [...ticks.entries()]
    .map(([group, t]) => [group, t / TICKS_PER_SEC] as const)
    .filter(([, secs]) => secs / seconds >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([group, secs]) => `${group} ${(secs / seconds).toFixed(2)}${requests ? ` = ${((secs * 1e6) / requests).toFixed(0)} µs` : ''}`)
    .join(', ');
}

/** Read and write system calls made so far by each group (`syscr`/`syscw` of /proc/<pid>/io). */
export type IoSnapshot = Map<string, { reads: number; writes: number }>;

export function ioSnapshot(): IoSnapshot {
  const out: IoSnapshot = new Map();
  forEachGrouped((group, pid) => {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const sum = out.get(group) ?? { reads: 0, writes: 0 };
    sum.reads += Number(/syscr: (\d+)/.exec(io)?.[1] ?? 0);
    sum.writes += Number(/syscw: (\d+)/.exec(io)?.[1] ?? 0);
    out.set(group, sum);
  });
  return out;
}

/**
 * Write and read system calls per request of each group between two snapshots ("gateway 1.33 w
 * 1.21 r"), most writes first. On this kind of machine a socket write is among the dearest things a
 * request does, and the count shows how well each hop batches. Counts read(2)/write(2)-family calls:
 * PostgreSQL's socket send(2)/recv(2) are not in them (its WAL writes are).
 */
export function ioSplit(from: IoSnapshot, to: IoSnapshot, requests: number): string {
  return [...to.entries()]
    .map(([group, t]) => {
      const f = from.get(group) ?? { reads: 0, writes: 0 };
      return [group, (t.writes - f.writes) / requests, (t.reads - f.reads) / requests] as const;
    })
    .filter(([, w, r]) => w + r >= 0.01)
    .sort((a, b) => b[1] - a[1])
    .map(([group, w, r]) => `${group} ${w.toFixed(2)} w ${r.toFixed(2)} r`)
    .join(', ');
}

/**
 * Runs one load and says where its CPU went (`cpuSplit`) and its system calls (`ioSplit`), over exactly that run.
 * A run with a part it does not count (an open loop's warm-up) calls `restart` when the counted
 * part begins, so the figures cover the same requests as its result.
 */
export async function withCpuSplit<R extends LoadResult>(
  run: (restart: () => void) => Promise<R>,
): Promise<{ result: R; cpu: string; io: string }> {
  let from = cpuSnapshot();
  let ioFrom = ioSnapshot();
  const result = await run(() => {
    from = cpuSnapshot();
    ioFrom = ioSnapshot();
  });
  const cpu = cpuSplit(from, cpuSnapshot(), result.seconds, result.requests);
  return { result, cpu, io: ioSplit(ioFrom, ioSnapshot(), Math.max(1, result.requests)) };
}
