import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Ends what a launcher leaves running when it dies without stopping it. `npm start` stops its
 * services and servers on SIGINT, SIGTERM and SIGHUP, but nothing can run in a process killed with
 * SIGKILL, and a bench or a Jest worker has no handler at all: `timeout` or `pkill` on a bench left
 * its NATS, Redis, PostgreSQL and services running, holding their ports and the machine's CPU.
 *
 * The first process a launcher starts also starts a watchdog: a small Node program of its own, in
 * its own process group (so Ctrl-C does not reach it), reading the launcher's pipe. The launcher
 * writes `+<pid>` for each process it starts and `-<pid>` when that process exits. The pipe closes
 * only when the launcher is gone, however it went; the watchdog then sends SIGTERM to every
 * process still listed, SIGKILL to any still alive after WATCHDOG_GRACE_MS, and exits. A launcher
 * that stopped its processes itself leaves an empty list, and the watchdog just exits.
 *
 * It is passed as source to `node -e`, so it runs the same from the build, from Jest's TypeScript
 * and from a deployed layout, with no file of its own to find.
 */
export const WATCHDOG_GRACE_MS = 5_000;

function watchdog(graceMs: number, alive: (pid: number) => boolean): void {
  const pids = new Set<number>();
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    pending += chunk;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      const pid = Number(line.slice(1));
      if (!Number.isInteger(pid) || pid <= 0) continue;
      if (line[0] === '+') pids.add(pid);
      else if (line[0] === '-') pids.delete(pid);
    }
  });
  const signal = (pid: number, sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  };
  let ending = false;
  const end = () => {
    if (ending) return;
    ending = true;
    const left = [...pids].filter(alive);
    for (const pid of left) signal(pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    const check = () => {
      const still = left.filter(alive);
      if (still.length === 0) process.exit(0);
      if (Date.now() >= deadline) {
        for (const pid of still) signal(pid, 'SIGKILL');
        process.exit(0);
      }
      setTimeout(check, 100);
    };
    check();
  };
  process.stdin.on('end', end);
  process.stdin.on('error', end);
  process.stdin.on('close', end);
}

/**
 * Whether `pid` still runs: it answers signal 0 (or exists but is not ours to signal) and is not a
 * zombie. A process that ended but that nobody has reaped yet (its parent is gone) still answers
 * signal 0; /proc shows it as `Z`. Self-contained (fs through `process.getBuiltinModule`): the
 * watchdog gets its source too.
 */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(process.getBuiltinModule('node:fs').readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch (err) {
    // Gone between the two looks; without /proc, signal 0 is all there is to go by.
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** The watchdog of this process, started with its first launch; null once it could not be started. */
let dog: ChildProcess | null | undefined;

function tell(line: string): void {
  if (dog === undefined) {
    try {
      dog = spawn(process.execPath, ['-e', `(${watchdog.toString()})(${WATCHDOG_GRACE_MS}, ${running.toString()})`], {
        stdio: ['pipe', 'ignore', 'ignore'],
        detached: true,
      });
      // Never what keeps the launcher alive: it ends when the launcher does.
      dog.unref();
      (dog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      dog.stdin?.on('error', () => {}); // the watchdog died first: nothing left to tell
      dog.once('exit', () => (dog = null));
    } catch {
      dog = null;
    }
  }
  if (dog?.stdin?.writable) dog.stdin.write(`${line}\n`);
}

/** Has `child` ended by the watchdog if this process dies while it still runs. */
export function endWithLauncher(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return; // the spawn failed: nothing runs
  tell(`+${pid}`);
  child.once('exit', () => tell(`-${pid}`));
}
