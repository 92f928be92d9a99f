import { type CpuSnapshot, cpuSplit } from './cpu-split';

const snapshot = (busy: number, processes: [pid: string, group: string, ticks: number][]): CpuSnapshot => ({
  busy,
  processes: new Map(processes.map(([pid, group, ticks]) => [pid, { group, ticks }])),
});

describe('cpuSplit', () => {
  it('gives each group the ticks its processes used in between, as cores and µs per request', () => {
    const from = snapshot(1000, [
      ['10', 'gateway', 500],
      ['20', 'postgres', 100],
      ['21', 'postgres', 50],
    ]);
    const to = snapshot(1300, [
      ['10', 'gateway', 600],
      ['20', 'postgres', 140],
      ['21', 'postgres', 60],
    ]);
    // 2 s, 1,000 requests: the gateway used 1 s of CPU (0.50 cores, 1,000 µs per request).
    expect(cpuSplit(from, to, 2, 1000)).toBe('all busy 1.50 = 3000 µs, gateway 0.50 = 1000 µs, postgres 0.25 = 500 µs');
  });

  it('does not take an ended process’s earlier ticks off its group, and counts a new one whole', () => {
    // An autovacuum worker (22) with 900 ticks ends during the run; a new backend (23) starts.
    const from = snapshot(0, [
      ['20', 'postgres', 100],
      ['22', 'postgres', 900],
    ]);
    const to = snapshot(200, [
      ['20', 'postgres', 130],
      ['23', 'postgres', 20],
    ]);
    expect(cpuSplit(from, to, 1)).toBe('all busy 2.00, postgres 0.50');
  });

  it('leaves out groups under half a percent of a core', () => {
    const from = snapshot(0, [
      ['10', 'gateway', 0],
      ['30', 'redis', 0],
    ]);
    const to = snapshot(100, [
      ['10', 'gateway', 50],
      ['30', 'redis', 0],
    ]);
    expect(cpuSplit(from, to, 10)).toBe('all busy 0.10, gateway 0.05');
  });
});
