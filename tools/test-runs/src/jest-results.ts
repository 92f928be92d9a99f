import { relative } from 'node:path';

/** The parts of Jest's `--json` output that a tally of runs reads. */
export interface JestJson {
  testResults: {
    name: string;
    status: string;
    message?: string;
    startTime?: number;
    endTime?: number;
    assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

/** One suite in one run. */
export interface SuiteRun {
  suite: string;
  passed: boolean;
  ms: number;
  /** The first failing test and the first line of its assertion (or the suite's own error). */
  failure?: string;
}

// Jest colours its messages; a table needs the text only.
const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;]*m`, 'g');

const firstLine = (text: string) =>
  text
    .replace(ANSI, '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length > 0) ?? '';

/** Each suite of a Jest `--json` result, with its outcome and the first failure it met. */
export function suiteRuns(json: JestJson, root: string): SuiteRun[] {
  return json.testResults.map((r) => {
    const failed = r.assertionResults.find((a) => a.status === 'failed');
    const passed = r.status === 'passed' && !failed;
    const failure = passed
      ? undefined
      : failed
        ? `${failed.fullName}: ${firstLine(failed.failureMessages?.join('\n') ?? '')}`
        : firstLine(r.message ?? 'failed') || 'failed';
    return { suite: relative(root, r.name), passed, ms: (r.endTime ?? 0) - (r.startTime ?? 0), ...(failure ? { failure } : {}) };
  });
}

/** Runs of every suite, added up. */
export interface SuiteTally {
  suite: string;
  runs: number;
  passes: number;
  failures: number;
  /** Distinct failure lines, in the order met. */
  failed: string[];
  /** The longest run (ms). */
  slowestMs: number;
}

export function tally(runs: readonly SuiteRun[]): SuiteTally[] {
  const by = new Map<string, SuiteTally>();
  for (const r of runs) {
    const t = by.get(r.suite) ?? { suite: r.suite, runs: 0, passes: 0, failures: 0, failed: [], slowestMs: 0 };
    t.runs++;
    if (r.passed) t.passes++;
    else {
      t.failures++;
      if (r.failure && !t.failed.includes(r.failure)) t.failed.push(r.failure);
    }
    t.slowestMs = Math.max(t.slowestMs, r.ms);
    by.set(r.suite, t);
  }
  // Failures first, then by name.
  return [...by.values()].sort((a, b) => b.failures - a.failures || a.suite.localeCompare(b.suite));
}

/** A Markdown table of a tally, with the failing assertions under it. */
export function tallyTable(rows: readonly SuiteTally[]): string {
  const out = ['| suite | runs | passes | failures | slowest (s) |', '| --- | ---: | ---: | ---: | ---: |'];
  for (const r of rows) out.push(`| ${r.suite} | ${r.runs} | ${r.passes} | ${r.failures} | ${(r.slowestMs / 1000).toFixed(1)} |`);
  const failing = rows.filter((r) => r.failures > 0);
  if (failing.length > 0) {
    out.push('', 'Failing assertions:');
    for (const r of failing) for (const f of r.failed) out.push(`- ${r.suite}: ${f.slice(0, 300)}`);
  }
  return out.join('\n');
}

/** The `n` slowest suites of one run, slowest first. */
export function slowest(runs: readonly SuiteRun[], n: number): SuiteRun[] {
  return [...runs].sort((a, b) => b.ms - a.ms).slice(0, n);
}
