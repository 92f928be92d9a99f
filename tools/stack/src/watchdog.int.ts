import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './services';
import { WATCHDOG_GRACE_MS } from './watchdog';

/**
 * A launcher killed with SIGKILL (nothing of its own can run) leaves nothing behind: the processes
 * it started through `launch` end, the one that ignores SIGTERM too, after the grace period.
 */
const LAUNCHER = `
const { launch } = require(${JSON.stringify(join(ROOT, 'dist/tools/stack/src/process.js'))});
const idle = 'setInterval(() => {}, 1000)';
const polite = launch('polite', process.execPath, ['-e', idle]);
const stubborn = launch('stubborn', process.execPath, ['-e', "process.on('SIGTERM', () => {}); " + idle]);
const done = launch('done', process.execPath, ['-e', '']);
done.child.once('exit', () => console.log(JSON.stringify([polite.child.pid, stubborn.child.pid])));
setInterval(() => {}, 1000);
`;

/** Running: it answers signal 0 and is not a zombie waiting to be reaped (its parent is gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('processes started with launch()', () => {
  let launcher: ChildProcess | undefined;
  let pids: number[] = [];

  afterEach(() => {
    launcher?.kill('SIGKILL');
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('end when their launcher is killed with SIGKILL, even one that ignores SIGTERM', async () => {
    launcher = spawn(process.execPath, ['-e', LAUNCHER], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      launcher!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      launcher!.once('exit', (code) => reject(new Error(`launcher exited (${code}) before it printed its children`)));
    });
    pids = JSON.parse(line) as number[];
    const [polite, stubborn] = pids as [number, number];
    expect(alive(polite)).toBe(true);
    expect(alive(stubborn)).toBe(true);
    // The stubborn one must have its SIGTERM handler in place before the watchdog's SIGTERM comes.
    await new Promise((r) => setTimeout(r, 300));

    const killedAt = Date.now();
    launcher.kill('SIGKILL');
    await until('the process that honours SIGTERM ended', () => !alive(polite), 3_000);
    // SIGTERM alone does not end it: it lives through the grace period, then SIGKILL does.
    await new Promise((r) => setTimeout(r, Math.max(0, WATCHDOG_GRACE_MS / 2 - (Date.now() - killedAt))));
    expect(alive(stubborn)).toBe(true);
    await until('the process that ignores SIGTERM ended', () => !alive(stubborn), WATCHDOG_GRACE_MS + 3_000);
  }, 20_000);
});
