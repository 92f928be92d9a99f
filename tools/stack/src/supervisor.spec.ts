import { EventEmitter } from 'node:events';
import type { Managed } from './process';
import { type RestartPolicy, supervise } from './supervisor';

/** A process stand-in: `exit()` ends it as a crash would. */
function fakeProc(pid: number): Managed & { exit(code: number | null, signal?: string): void } {
  const child = Object.assign(new EventEmitter(), { pid });
  return {
    name: 'svc',
    child: child as unknown as Managed['child'],
    stop: jest.fn(async () => undefined),
    exit: (code, signal) => child.emit('exit', code, signal ?? null),
  };
}

const POLICY: RestartPolicy = { firstDelayMs: 5, maxDelayMs: 20, maxStartFailures: 3, stableAfterMs: 60_000 };

describe('supervise (the local stack restart policy)', () => {
  it('starts a service that exits again, with a wait that doubles while it keeps exiting, and says so', async () => {
    const lines: string[] = [];
    let pid = 100;
    const start = jest.fn(async () => fakeProc(++pid));
    const first = fakeProc(pid);
    const s = supervise({ name: 'svc', running: first, start, policy: POLICY, info: (l) => lines.push(l), warn: (l) => lines.push(l) });
    first.exit(null, 'SIGKILL');
    await s.settled;
    const second = (await start.mock.results[0]!.value) as ReturnType<typeof fakeProc>;
    second.exit(1);
    await s.settled;
    expect(lines).toEqual([
      '[stack] svc was killed (SIGKILL); restarting it in 5 ms (restart 1 in a row)',
      '[stack] svc restarted and ready (pid 101)',
      '[stack] svc exited (code 1); restarting it in 10 ms (restart 2 in a row)',
      '[stack] svc restarted and ready (pid 102)',
    ]);
    expect(start).toHaveBeenCalledTimes(2);
  });

  it('leaves a service down after maxStartFailures failed starts in a row, with the last error and its log lines', async () => {
    const lines: string[] = [];
    let attempt = 0;
    const start = jest.fn(async (): Promise<Managed> => {
      attempt++;
      throw new Error(
        `svc exited (code 1) before it was ready; last log lines:\n{"msg":"bad RELAY_WALLET_FLOOR_WEI","attempt":${attempt}}`,
      );
    });
    const first = fakeProc(1);
    const s = supervise({ name: 'svc', running: first, start, policy: POLICY, info: (l) => lines.push(l), warn: (l) => lines.push(l) });
    first.exit(1);
    await s.settled;
    expect(start).toHaveBeenCalledTimes(3);
    expect(lines.slice(0, 3)).toEqual([
      '[stack] svc exited (code 1); restarting it in 5 ms (restart 1 in a row)',
      '[stack] svc did not start (svc exited (code 1) before it was ready; last log lines:); restarting it in 10 ms (restart 2 in a row)',
      '[stack] svc did not start (svc exited (code 1) before it was ready; last log lines:); restarting it in 20 ms (restart 3 in a row)',
    ]);
    expect(lines[3]).toBe(
      '[stack] svc failed to start 3 times in a row; not restarting it again (fix the cause, then restart npm start). The last attempt: svc exited (code 1) before it was ready; last log lines:\n{"msg":"bad RELAY_WALLET_FLOOR_WEI","attempt":3}',
    );
    expect(lines).toHaveLength(4);
  });

  it('doubles the wait up to its cap, and starts over once the service stayed up', async () => {
    let t = 0;
    const waits: string[] = [];
    const procs: ReturnType<typeof fakeProc>[] = [];
    const start = jest.fn(async () => {
      const p = fakeProc(procs.length + 2);
      procs.push(p);
      return p;
    });
    const first = fakeProc(1);
    const policy = { firstDelayMs: 1, maxDelayMs: 4, maxStartFailures: 3, stableAfterMs: 1000 };
    const s = supervise({
      name: 'svc',
      running: first,
      start,
      policy,
      info: () => undefined,
      warn: (l) => waits.push(/in (\S+ m?s)/.exec(l)![1]!),
      now: () => t,
    });
    first.exit(1);
    await s.settled;
    for (let i = 0; i < 3; i++) {
      procs.at(-1)!.exit(1);
      await s.settled;
    }
    t += 1000; // up a while: the next exit starts over
    procs.at(-1)!.exit(1);
    await s.settled;
    expect(waits).toEqual(['1 ms', '2 ms', '4 ms', '4 ms', '1 ms']);
    expect(start).toHaveBeenCalledTimes(5);
  });

  it('starts nothing once stopped', async () => {
    const start = jest.fn(async () => fakeProc(2));
    const first = fakeProc(1);
    const s = supervise({ name: 'svc', running: first, start, policy: POLICY, info: () => undefined, warn: () => undefined });
    s.stop();
    first.exit(0);
    await s.settled;
    expect(start).not.toHaveBeenCalled();
  });
});
