import { basename, join } from 'node:path';

/**
 * Where a test suite's servers and services write their logs: `.test-data/logs/<suite file>/`, one
 * folder per suite file, outside any stack's data folder, so the logs outlive the stack. The
 * failure reporter (tools/test-runs) prints their tails when the suite fails and removes the
 * folder when it passes.
 */
export function suiteLogsDir(root: string, testPath: string): string {
  return join(root, '.test-data', 'logs', basename(testPath));
}

/** The file in a suite's log folder where each gateway answer's trace id is noted with the test that asked. */
export const REQUESTS_FILE = 'requests.jsonl';

/** One line of REQUESTS_FILE. */
export interface RequestNote {
  /** The test's full name (describe blocks and title), or `(setup)` outside a test. */
  test: string;
  trace_id: string;
  method: string;
  path: string;
  status: number;
}
