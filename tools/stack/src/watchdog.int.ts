import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './services';
import { WATCHDOG_GRACE_MS, running } from './watchdog';
import { until, type UntilOptions } from './until';

/**
 * A launcher killed with SIGKILL (nothing of its own can run) leaves nothing behind: the processes
 * it started through `launch` end, the one that ignores SIGTERM too, after the grace period.
 */
const LAUNCHER = `
const { launch } = require(${JSON.stringify(join(ROOT, 'dist/tools/stack/src/process.js'))});
const idle = 'setInterval(() => {}, 1000)';
const polite = launch('polite', process.execPath, ['-e', idle]);
// It says when its SIGTERM handler is in place, and when a SIGTERM came (its output is the launcher's).
const stubborn = launch('stubborn', process.execPath, ['-e', "process.on('SIGTERM', () => console.log('stubborn: SIGTERM')); console.log('stubborn: ready'); " + idle]);
const done = launch('done', process.execPath, ['-e', '']);
done.child.once('exit', () => console.log('pids: ' + JSON.stringify([polite.child.pid, stubborn.child.pid])));
setInterval(() => {}, 1000);
`;

const POLL: UntilOptions = { failOnError: true };

describe('processes started with launch()', () => {
  let launcher: ChildProcess | undefined;
  let pids: number[] = [];

  afterEach(() => {
    launcher?.kill('SIGKILL');
    for (const pid of pids) if (running(pid)) process.kill(pid, 'SIGKILL');
  });

  it('end when their launcher is killed with SIGKILL, even one that ignores SIGTERM', async () => {
    launcher = spawn(process.execPath, ['-e', LAUNCHER], { stdio: ['ignore', 'pipe', 'inherit'] });
    // The pipe stays open after the launcher dies: its children hold it too.
    let out = '';
    launcher.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const said = (line: string) => out.split('\n').includes(line);
    await until('the launcher printed its children and the stubborn one is ready', () => /^pids: /m.test(out) && said('stubborn: ready'), {
      ...POLL,
      timeoutMs: 10_000,
    });
    pids = JSON.parse(/^pids: (.*)$/m.exec(out)![1]!) as number[];
    const [polite, stubborn] = pids as [number, number];
    expect(running(polite)).toBe(true);
    expect(running(stubborn)).toBe(true);

    launcher.kill('SIGKILL');
    await until('the process that honours SIGTERM ended', () => !running(polite), { ...POLL, timeoutMs: 3_000 });
    await until('the process that ignores SIGTERM was sent one', () => said('stubborn: SIGTERM'), { ...POLL, timeoutMs: 3_000 });
    // SIGTERM alone did not end it; SIGKILL does, after the grace period.
    expect(running(stubborn)).toBe(true);
    await until('the process that ignores SIGTERM ended', () => !running(stubborn), { ...POLL, timeoutMs: WATCHDOG_GRACE_MS + 3_000 });
  }, 30_000);
});
