import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ALERT_RULES_FILE,
  ALERT_TESTS_FILE,
  DEFAULT_SERVICE_PORTS,
  PROMETHEUS_MISSING,
  findExecutable,
  prometheusConfig,
} from './prometheus';

const promtool = findExecutable('promtool');
if (!promtool) console.warn(`[prometheus-rules] SKIPPED: ${PROMETHEUS_MISSING} (it brings promtool)`);
const describeWithPromtool = promtool ? describe : describe.skip;

function run(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(promtool!, args, { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

/** Prometheus' own tool on our files: the rules are valid, each alert fires where it should, the generated configuration loads. */
describeWithPromtool('alert rules and configuration (promtool)', () => {
  it('validates the alert rules', async () => {
    const r = await run(['check', 'rules', ALERT_RULES_FILE]);
    expect(r.out).toMatch(/SUCCESS: \d+ rules found/);
    expect(r.code).toBe(0);
  });

  it('fires each alert on the series it is meant for and not before (promtool test rules)', async () => {
    const r = await run(['test', 'rules', ALERT_TESTS_FILE]);
    expect(r.out).toContain('SUCCESS');
    expect(r.code).toBe(0);
  });

  it('accepts the configuration npm start and the tests write, rules included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prom-config-'));
    try {
      const file = join(dir, 'prometheus.yml');
      writeFileSync(file, prometheusConfig({ targets: DEFAULT_SERVICE_PORTS, scrapeIntervalSecs: 1, rulesFile: ALERT_RULES_FILE }));
      const r = await run(['check', 'config', file]);
      expect(r.out).toContain('is valid prometheus config file syntax');
      expect(r.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails on a broken rule (the check can fail)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prom-rules-'));
    try {
      const file = join(dir, 'bad.rules.yml');
      writeFileSync(file, 'groups:\n  - name: bad\n    rules:\n      - alert: Broken\n        expr: sum by (job (rate(x[5m]))\n');
      const r = await run(['check', 'rules', file]);
      expect(r.code).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
