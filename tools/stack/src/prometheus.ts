import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { type Managed, launch, tcpOpen, waitFor } from './process';
import { ROOT } from './services';

/** The checked-in configuration: the local stack's Prometheus and its alert rules. */
export const PROMETHEUS_DIR = join(ROOT, 'ops/prometheus');
export const ALERT_RULES_FILE = join(PROMETHEUS_DIR, 'alerts.rules.yml');
export const ALERT_TESTS_FILE = join(PROMETHEUS_DIR, 'alerts.test.yml');

/** The services' HTTP ports under `npm start` with no port variable set. */
export const DEFAULT_SERVICE_PORTS: Readonly<Record<string, number>> = {
  gateway: 8080,
  'quote-engine': 8082,
  'price-oracle': 8083,
  'gasless-relayer': 8084,
  'partner-service': 8085,
};

export interface PrometheusConfigOptions {
  /** Service name (the scrape job) → its HTTP port on 127.0.0.1. */
  targets: Readonly<Record<string, number>>;
  scrapeIntervalSecs: number;
  /** The alert rules, as Prometheus should find them (relative to the configuration file, or absolute). */
  rulesFile: string;
}

/**
 * Prometheus' configuration for services on loopback: one job per service, named after it, at
 * `/metrics` on its HTTP port, and the alert rules. `ops/prometheus/prometheus.yml` is this with
 * the default ports (a test keeps the two equal).
 */
export function prometheusConfig(opts: PrometheusConfigOptions): string {
  const secs = `${opts.scrapeIntervalSecs}s`;
  const jobs = Object.entries(opts.targets).map(
    ([service, port]) =>
      `  - job_name: ${service}\n    metrics_path: /metrics\n    static_configs:\n      - targets: ['127.0.0.1:${port}']\n`,
  );
  return [
    '# Prometheus for the local stack: each service at /metrics on its HTTP port, and the alert rules.',
    '# `PROMETHEUS=1 npm start` runs Prometheus with this configuration, written with the ports it uses.',
    'global:',
    `  scrape_interval: ${secs}`,
    `  evaluation_interval: ${secs}`,
    `  scrape_timeout: ${secs}`,
    'rule_files:',
    `  - ${opts.rulesFile}`,
    'scrape_configs:',
    ...jobs,
  ].join('\n');
}

/** The path of an executable on PATH (or Debian's /usr/bin), or undefined when it is not installed. */
export function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    const p = join(dir, name);
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

export const PROMETHEUS_MISSING =
  'prometheus is not installed: `apt-get install -y prometheus` (Debian; scripts/ensure-deps.sh installs it)';

export interface StartPrometheusOptions extends Omit<PrometheusConfigOptions, 'rulesFile'> {
  /** Its configuration and data go here. */
  dir: string;
  port: number;
  logFile?: string;
  /** Default: the checked-in alert rules. */
  rulesFile?: string;
}

export interface RunningPrometheus {
  proc: Managed;
  url: string;
  configFile: string;
}

/**
 * Starts Debian's `prometheus` on 127.0.0.1:`port` scraping the given targets, with its data under
 * `dir`, and waits until it is ready. Its API (`/api/v1/targets`, `/api/v1/query`) is then at `url`.
 */
export async function startPrometheus(opts: StartPrometheusOptions): Promise<RunningPrometheus> {
  const bin = findExecutable('prometheus');
  if (!bin) throw new Error(PROMETHEUS_MISSING);
  if (await tcpOpen(opts.port)) throw new Error(`port ${opts.port} for Prometheus is already in use; set PROMETHEUS_PORT to a free port`);
  mkdirSync(join(opts.dir, 'data'), { recursive: true });
  const configFile = join(opts.dir, 'prometheus.yml');
  writeFileSync(configFile, prometheusConfig({ ...opts, rulesFile: opts.rulesFile ?? ALERT_RULES_FILE }));
  const proc = launch(
    'prometheus',
    bin,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(opts.dir, 'data')}`,
      '--storage.tsdb.retention.time=2d',
      `--web.listen-address=127.0.0.1:${opts.port}`,
    ],
    { logFile: opts.logFile },
  );
  const url = `http://127.0.0.1:${opts.port}`;
  await waitFor('prometheus', async () => (await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) })).ok, 30_000, proc);
  return { proc, url, configFile };
}
