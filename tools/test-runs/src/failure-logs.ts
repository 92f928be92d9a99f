import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REQUESTS_FILE, type RequestNote } from '@xchain/stack';

export interface FailureLogsOptions {
  /** Lines from the end of each log file. */
  tailLines: number;
  /** Traces per failing test (its last requests). */
  tracesPerTest: number;
  /** Log lines shown per trace. */
  linesPerTrace: number;
  /** Characters kept of one line. */
  lineChars: number;
}

export const FAILURE_LOGS_DEFAULTS: FailureLogsOptions = { tailLines: 30, tracesPerTest: 3, linesPerTrace: 15, lineChars: 400 };

/** Every `*.log` file under `dir`, oldest first. */
export function logFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.log')) found.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return found.sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
}

/** The traces a test's requests carried, last ones first (from the suite's REQUESTS_FILE). */
export function tracesOf(dir: string, test: string): RequestNote[] {
  const file = join(dir, REQUESTS_FILE);
  if (!existsSync(file)) return [];
  const notes: RequestNote[] = [];
  for (const l of lines(file)) {
    try {
      const n = JSON.parse(l) as RequestNote;
      if (n.test === test) notes.push(n);
    } catch {
      // a line cut by a crash: skip it
    }
  }
  return notes.reverse();
}

/**
 * What a reader of a red run needs from a failed suite's log folder: for each failing test, the
 * service log lines of its last traces, then the tail of every log the suite's stacks wrote.
 */
export function failureLogs(dir: string, failingTests: readonly string[], opts: FailureLogsOptions = FAILURE_LOGS_DEFAULTS): string {
  const cut = (l: string) => (l.length > opts.lineChars ? `${l.slice(0, opts.lineChars)}…` : l);
  const files = logFiles(dir);
  const out: string[] = [];
  for (const test of failingTests) {
    const traces = tracesOf(dir, test).slice(0, opts.tracesPerTest);
    if (traces.length === 0) {
      out.push(`  ✕ ${test}: no gateway answer was traced`);
      continue;
    }
    for (const t of traces) {
      out.push(`  ✕ ${test}: trace ${t.trace_id} (${t.method} ${t.path} → ${t.status})`);
      for (const f of files) {
        const hits = lines(f)
          .filter((l) => l.includes(t.trace_id))
          .slice(-opts.linesPerTrace);
        for (const h of hits) out.push(`    ${relative(dir, f)}: ${cut(h)}`);
      }
    }
  }
  for (const f of files) {
    const tail = lines(f).slice(-opts.tailLines);
    out.push(`  ── ${relative(dir, f)} (last ${tail.length} lines)`);
    for (const l of tail) out.push(`    ${cut(l)}`);
  }
  return out.join('\n');
}
