import type { Managed } from './process';

/** When and how often the local stack starts a service again (`npm start`; docs/operations.md). */
export interface RestartPolicy {
  /** The wait before the first restart, doubled for each further restart in a row, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** Failed starts in a row (it exited, or was not ready in time) after which the service is left down. */
  maxStartFailures: number;
  /** Up at least this long, a service that exits starts the backoff over. */
  stableAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  firstDelayMs: 1000,
  maxDelayMs: 30_000,
  maxStartFailures: 5,
  stableAfterMs: 60_000,
};

export interface SuperviseOptions {
  name: string;
  /** The instance running now. */
  running: Managed;
  /** Starts the service again and resolves once it is ready; rejects with why it is not (its last log lines). */
  start: () => Promise<Managed>;
  policy: RestartPolicy;
  /** Where its output goes, named when it exits. */
  logFile?: string;
  /** Restarted, ready again. */
  info: (line: string) => void;
  /** Exited, restarting, giving up. */
  warn: (line: string) => void;
  now?: () => number;
}

export interface Supervisor {
  /** No restart from now on; a start under way is stopped when it is done. */
  stop(): void;
  /** Resolves once the service is running again or was given up (for tests). */
  readonly settled: Promise<void>;
}

/**
 * The local stack's restart policy, like compose's `restart: on-failure` with Docker's backoff: a
 * service that exits is started again after a wait that doubles with each restart in a row (1 s,
 * 2 s, 4 s, … up to 30 s; back to 1 s once it has stayed up a minute), and each step is logged. A
 * service that fails to start `maxStartFailures` times in a row (a bad setting, a port taken) is
 * left down, with the reason: the last attempt's error and the service's last log lines.
 */
export function supervise(opts: SuperviseOptions): Supervisor {
  const now = opts.now ?? Date.now;
  const { policy, name } = opts;
  let stopped = false;
  let restartsInARow = 0;
  let upSince = now();
  let wake: (() => void) | undefined;
  let settle: () => void = () => undefined;
  let settled = Promise.resolve();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const watch = (proc: Managed) => {
    proc.child.once('exit', (code, signal) => {
      if (stopped) return;
      settled = new Promise((resolve) => (settle = resolve));
      const how = code === null ? `was killed (${signal})` : `exited (code ${code})`;
      void restart(opts.logFile ? `${how}, see ${opts.logFile}` : how).finally(() => settle());
    });
  };

  const restart = async (why: string): Promise<void> => {
    if (now() - upSince >= policy.stableAfterMs) restartsInARow = 0;
    let reason = why;
    for (let failures = 0; ;) {
      const delay = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** restartsInARow);
      restartsInARow++;
      opts.warn(`[stack] ${name} ${reason}; restarting it in ${seconds(delay)} (restart ${restartsInARow} in a row)`);
      await sleep(delay);
      if (stopped) return;
      try {
        const proc = await opts.start();
        if (stopped) {
          await proc.stop();
          return;
        }
        upSince = now();
        opts.info(`[stack] ${name} restarted and ready (pid ${proc.child.pid})`);
        watch(proc);
        return;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (++failures >= policy.maxStartFailures) {
          opts.warn(
            `[stack] ${name} failed to start ${failures} times in a row; not restarting it again (fix the cause, then restart npm start). The last attempt: ${message}`,
          );
          return;
        }
        reason = `did not start (${message.split('\n')[0]})`;
      }
    }
  };

  watch(opts.running);
  return {
    stop() {
      stopped = true;
      wake?.();
    },
    get settled() {
      return settled;
    },
  };
}

function seconds(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
