import { existsSync, rmSync } from 'node:fs';
import { ROOT, suiteLogsDir } from '@xchain/stack';
import { failureLogs } from './failure-logs';

/** The parts of Jest's TestResult this reporter reads. */
interface SuiteResult {
  testFilePath: string;
  numFailingTests: number;
  testExecError?: { message?: string } | null;
  testResults: { fullName: string; status: string }[];
}

/**
 * A Jest reporter (scripts/test.sh adds it beside the default one): when a suite fails, it prints
 * the logs its stacks wrote, the failing tests' traces first; when a suite passes, it removes them.
 */
export default class FailureLogsReporter {
  onTestResult(_test: unknown, result: SuiteResult): void {
    const dir = suiteLogsDir(ROOT, result.testFilePath);
    if (!existsSync(dir)) return;
    const failing = result.testResults.filter((t) => t.status === 'failed').map((t) => t.fullName);
    if (failing.length === 0 && !result.testExecError) {
      rmSync(dir, { recursive: true, force: true });
      return;
    }
    process.stderr.write(`\n[failure logs] ${result.testFilePath} (kept in ${dir})\n${failureLogs(dir, failing)}\n\n`);
  }

  getLastError(): Error | undefined {
    return undefined;
  }
}
