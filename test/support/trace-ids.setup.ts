import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { REQUESTS_FILE, type RequestNote } from '@xchain/stack';
import { currentSuiteLogs } from './suite-logs';

/**
 * Notes the trace id (`x-request-id`) of every answer a test gets from a gateway, with the test's
 * name, in the suite's log folder: when the suite fails, the failure reporter prints the service
 * log lines of the failing test's traces.
 */
const original = globalThis.fetch;
globalThis.fetch = async function noted(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  const res = await original(input, init);
  const traceId = res.headers.get('x-request-id');
  if (traceId) note(input, init, res.status, traceId);
  return res;
};

function note(input: Parameters<typeof fetch>[0], init: RequestInit | undefined, status: number, traceId: string): void {
  try {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const line: RequestNote = {
      test: expect.getState().currentTestName ?? '(setup)',
      trace_id: traceId,
      method,
      path: url.pathname,
      status,
    };
    const dir = currentSuiteLogs();
    mkdirSync(dir, { recursive: true });
    appendFileSync(join(dir, REQUESTS_FILE), `${JSON.stringify(line)}\n`);
  } catch {
    // A note is a help for reading a failure; it never fails a test.
  }
}
