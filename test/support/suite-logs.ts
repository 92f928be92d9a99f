import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, suiteLogsDir } from '@xchain/stack';

/** The log folder of the suite now running (see `suiteLogsDir`). */
export function currentSuiteLogs(): string {
  const testPath = expect.getState().testPath;
  if (!testPath) throw new Error('currentSuiteLogs: no suite is running');
  return suiteLogsDir(ROOT, testPath);
}

/** A fresh folder for one stack's logs in the running suite's log folder. */
export function suiteLogDir(label = 'stack'): string {
  const dir = join(currentSuiteLogs(), `${label}-${randomBytes(3).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A stack's start, step by step with the time, in `<logDir>/stack.log` (startStack's onProgress):
 * a start that hangs or fails shows in the failure logs where it stopped.
 */
export function stackProgressLog(logDir: string): (line: string) => void {
  return (line) => appendFileSync(join(logDir, 'stack.log'), `${new Date().toISOString()} ${line}\n`);
}
