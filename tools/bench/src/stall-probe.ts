import { type ChildProcess, spawn } from 'node:child_process';

/**
 * How late an idle process's 1 ms timer ran during a benchmark run: the machine's own stalls, told
 * apart from our services'. The probe does no work, so its timer runs late only when it waits for
 * a core (the machine saturated, or its host paused it). A run whose slow requests line up with a
 * long gap here was stalled as a whole machine; one with no gap but a high p99 was stalled by what
 * it measures (a full GC, a queue).
 */
export interface StallProbe {
  /** The probe's process. */
  pid: number;
  /** Starts a run's window: `take` reports the gaps that end after this. */
  mark(): void;
  /** The timer's gaps since the last `mark`. */
  take(): Promise<Stalls>;
  stop(): Promise<void>;
}

/** A gap: when the timer last ran before it (epoch ms) and how long until it ran again (ms). */
export type Gap = readonly [startMs: number, lengthMs: number];

export interface Stalls {
  /** The longest gap in the window, in ms (the timer's own 1 ms included); 0 for none. */
  longestMs: number;
  /** Gaps over STALL_MS in the window. */
  over: number;
}

/** A gap longer than this counts as a stall. */
export const STALL_MS = 5;
/** The child records gaps over this (a 1 ms timer on an idle machine runs within it). */
const RECORD_MS = 2;

// Runs in its own process (`node -e`), so it works the same from dist and under Jest.
const CHILD = `
const gaps = [];
let last = performance.now();
const tick = () => {
  const now = performance.now();
  if (now - last > ${RECORD_MS}) gaps.push([performance.timeOrigin + last, now - last]);
  last = now;
  setTimeout(tick, 1);
};
tick();
process.on('message', (m) => { if (m === 'take') process.send(gaps.splice(0)); });
process.on('disconnect', () => process.exit(0));
process.send('up');
`;

/** The gaps of `gaps` that end at or after `fromMs` (epoch ms), summed up. */
export function stallsOf(gaps: readonly Gap[], fromMs: number): Stalls {
  let longestMs = 0;
  let over = 0;
  for (const [start, length] of gaps) {
    if (start + length < fromMs) continue;
    longestMs = Math.max(longestMs, length);
    if (length > STALL_MS) over++;
  }
  return { longestMs, over };
}

const nowMs = () => performance.timeOrigin + performance.now();

function ask(child: ChildProcess, timeoutMs: number): Promise<Gap[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`stall probe did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (m: unknown) => {
      if (!Array.isArray(m)) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(m as Gap[]);
    };
    child.on('message', onMessage);
    child.send('take');
  });
}

export async function startStallProbe(timeoutMs = 5000): Promise<StallProbe> {
  const child = spawn(process.execPath, ['-e', CHILD], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`stall probe did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`stall probe exited (${code}) before it started`));
    });
  });
  let from = nowMs();
  return {
    pid: child.pid!,
    mark: () => {
      from = nowMs();
    },
    take: async () => stallsOf(await ask(child, timeoutMs), from),
    stop: async () => {
      if (child.connected) child.disconnect();
      const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(kill);
    },
  };
}
