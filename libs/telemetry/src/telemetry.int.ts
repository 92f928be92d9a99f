import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const BUILT = join(ROOT, 'dist', 'libs', 'telemetry', 'src', 'index.js');

/**
 * Starts telemetry in a fresh Node process (the instrumentations patch modules as they are
 * required, which Jest's own module loader would hide), then requires pg and node:http and reports
 * whether OpenTelemetry wrapped them. Runs the build (`scripts/build.sh` runs before the tests).
 */
function instrumented(env: Record<string, string>): { pg: boolean; http: boolean } {
  const probe = `
    require(${JSON.stringify(BUILT)}).startTelemetry('probe');
    const pg = require('pg');
    const http = require('node:http');
    process.stdout.write(JSON.stringify({ pg: pg.Client.prototype.query.__wrapped === true, http: http.request.__wrapped === true }));
  `;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_'))) as Record<string, string>;
  const out = execFileSync(process.execPath, ['-e', probe], { cwd: ROOT, env: { ...clean, ...env }, encoding: 'utf8', timeout: 20_000 });
  return JSON.parse(out) as { pg: boolean; http: boolean };
}

describe('startTelemetry', () => {
  beforeAll(() => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run scripts/build.sh first`);
  });

  it('wraps no node:http call when nothing is exported, and still instruments pg (see startTelemetry)', () => {
    expect(instrumented({})).toEqual({ pg: true, http: false });
  });

  it('instruments pg and node:http when spans go to an exporter', () => {
    expect(instrumented({ OTEL_TRACES_EXPORTER: 'console' })).toEqual({ pg: true, http: true });
    expect(instrumented({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({ pg: true, http: true });
  });
});
