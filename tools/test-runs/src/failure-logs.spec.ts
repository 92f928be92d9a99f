import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REQUESTS_FILE } from '@xchain/stack';
import { failureLogs } from './failure-logs';

describe('failureLogs', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'failure-logs-'));
    mkdirSync(join(dir, 'stack-1'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("shows the failing test's trace lines from every service log, then each log's tail", () => {
    const note = (test: string, trace: string) =>
      JSON.stringify({ test, trace_id: trace, method: 'POST', path: '/json/v1/quote', status: 503 });
    writeFileSync(join(dir, REQUESTS_FILE), [note('quotes other', 'aaa'), note('quotes it', 'bbb'), ''].join('\n'));
    writeFileSync(
      join(dir, 'stack-1', 'gateway.log'),
      ['{"msg":"start"}', '{"trace_id":"bbb","msg":"upstream timeout"}', '{"trace_id":"aaa","msg":"ok"}', '{"msg":"last"}'].join('\n'),
    );
    writeFileSync(join(dir, 'stack-1', 'quote-engine.log'), '{"trace_id":"bbb","msg":"database unavailable"}\n');
    const text = failureLogs(dir, ['quotes it', 'never asked'], { tailLines: 2, tracesPerTest: 3, linesPerTrace: 5, lineChars: 400 });
    expect(text).toContain('✕ quotes it: trace bbb (POST /json/v1/quote → 503)');
    expect(text).toContain('stack-1/gateway.log: {"trace_id":"bbb","msg":"upstream timeout"}');
    expect(text).toContain('stack-1/quote-engine.log: {"trace_id":"bbb","msg":"database unavailable"}');
    expect(text).not.toContain('trace aaa');
    expect(text).toContain('✕ never asked: no gateway answer was traced');
    // The tails: the last two lines of the gateway's log, not its first.
    expect(text).toContain('── stack-1/gateway.log (last 2 lines)');
    expect(text).toContain('    {"msg":"last"}');
    expect(text).not.toContain('    {"msg":"start"}');
  });
});
