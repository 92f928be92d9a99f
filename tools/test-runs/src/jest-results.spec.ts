import { slowest, suiteRuns, tally, tallyTable, type JestJson } from './jest-results';

const ESC = String.fromCharCode(27);

const run = (outcomes: Record<string, 'pass' | 'fail' | 'error'>, ms = 1000): JestJson => ({
  testResults: Object.entries(outcomes).map(([name, o]) => ({
    name: `/repo/test/e2e/${name}`,
    status: o === 'pass' ? 'passed' : 'failed',
    startTime: 0,
    endTime: ms,
    ...(o === 'error' ? { message: `  ${ESC}[1m● Test suite failed to run${ESC}[22m\n\n  beforeAll timed out` } : {}),
    assertionResults:
      o === 'fail'
        ? [
            { fullName: 'a passes', status: 'passed' },
            {
              fullName: 'b warns once',
              status: 'failed',
              failureMessages: [`Error: ${ESC}[2mexpect(${ESC}[22mreceived).toHaveLength(1)\n  at x`],
            },
          ]
        : o === 'pass'
          ? [{ fullName: 'a passes', status: 'passed' }]
          : [],
  })),
});

describe('suiteRuns and tally', () => {
  it('counts runs, passes and failures per suite, with the first failing assertion as plain text', () => {
    const runs = [
      ...suiteRuns(run({ 'x.e2e.ts': 'pass', 'y.e2e.ts': 'fail' }), '/repo'),
      ...suiteRuns(run({ 'x.e2e.ts': 'error', 'y.e2e.ts': 'fail' }, 3000), '/repo'),
      ...suiteRuns(run({ 'x.e2e.ts': 'pass', 'y.e2e.ts': 'pass' }), '/repo'),
    ];
    const t = tally(runs);
    expect(t).toEqual([
      {
        suite: 'test/e2e/y.e2e.ts',
        runs: 3,
        passes: 1,
        failures: 2,
        failed: ['b warns once: Error: expect(received).toHaveLength(1)'],
        slowestMs: 3000,
      },
      { suite: 'test/e2e/x.e2e.ts', runs: 3, passes: 2, failures: 1, failed: ['● Test suite failed to run'], slowestMs: 3000 },
    ]);
    const table = tallyTable(t);
    expect(table).toContain('| test/e2e/y.e2e.ts | 3 | 1 | 2 | 3.0 |');
    expect(table).toContain('- test/e2e/y.e2e.ts: b warns once: Error: expect(received).toHaveLength(1)');
  });

  it('a run with no failure has no failing assertions section', () => {
    const table = tallyTable(tally(suiteRuns(run({ 'x.e2e.ts': 'pass' }), '/repo')));
    expect(table).not.toContain('Failing assertions');
    expect(table).toContain('| test/e2e/x.e2e.ts | 1 | 1 | 0 | 1.0 |');
  });

  it('slowest lists the longest suites first', () => {
    const runs = [
      { suite: 'a', passed: true, ms: 5 },
      { suite: 'b', passed: true, ms: 50 },
      { suite: 'c', passed: true, ms: 20 },
    ];
    expect(slowest(runs, 2).map((r) => r.suite)).toEqual(['b', 'c']);
  });
});
