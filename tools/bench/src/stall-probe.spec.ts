import { STALL_MS, type StallProbe, startStallProbe, stallsOf } from './stall-probe';

describe('stallsOf', () => {
  it('counts only the gaps that end in the window, and the longest of them', () => {
    const gaps = [
      [1000, 40], // ended at 1040, before the window
      [1990, 12], // began before the window, ended in it
      [2100, 3],
      [2200, 30],
    ] as const;
    expect(stallsOf(gaps, 2000)).toEqual({ longestMs: 30, over: 2 });
    expect(stallsOf(gaps, 5000)).toEqual({ longestMs: 0, over: 0 });
  });

  it('does not count a gap of STALL_MS or less as a stall', () => {
    expect(stallsOf([[0, STALL_MS]], 0)).toEqual({ longestMs: STALL_MS, over: 0 });
  });
});

describe('startStallProbe', () => {
  let probe: StallProbe | undefined;
  afterEach(async () => {
    await probe?.stop();
    probe = undefined;
  });

  /** Stops the probe's process for `ms` (SIGSTOP), as a host that deschedules it would. */
  async function pause(p: StallProbe, ms: number): Promise<void> {
    process.kill(p.pid, 'SIGSTOP');
    await new Promise((r) => setTimeout(r, ms));
    process.kill(p.pid, 'SIGCONT');
    await new Promise((r) => setTimeout(r, 30));
  }

  it('reports a pause of the probe process as a stall at least that long', async () => {
    probe = await startStallProbe();
    probe.mark();
    await pause(probe, 150);
    const stalls = await probe.take();
    expect(stalls.longestMs).toBeGreaterThanOrEqual(140);
    expect(stalls.over).toBeGreaterThanOrEqual(1);
  });

  it('leaves out a stall that ended before its mark', async () => {
    probe = await startStallProbe();
    await pause(probe, 150);
    probe.mark();
    await new Promise((r) => setTimeout(r, 30));
    expect((await probe.take()).longestMs).toBeLessThan(140);
  });

  it('ends its process on stop', async () => {
    probe = await startStallProbe();
    const { pid } = probe;
    await probe.stop();
    probe = undefined;
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
