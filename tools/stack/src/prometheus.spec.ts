import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SERVICE_PORTS, PROMETHEUS_DIR, prometheusConfig } from './prometheus';
import { startDevPrometheus } from './prometheus-dev';
import { metricNamesIn } from './prometheus-rules';
import { SERVICES } from './services';

describe('the local Prometheus configuration', () => {
  it('is what npm start writes for the default ports (the checked-in file cannot drift from the generator)', () => {
    const generated = prometheusConfig({ targets: DEFAULT_SERVICE_PORTS, scrapeIntervalSecs: 5, rulesFile: 'alerts.rules.yml' });
    expect(generated).toBe(readFileSync(join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8'));
  });

  it('has one scrape job per service, at /metrics on its port', () => {
    expect(Object.keys(DEFAULT_SERVICE_PORTS).sort()).toEqual(SERVICES.map((s) => s.name).sort());
    const text = prometheusConfig({
      targets: { gateway: 41000, 'quote-engine': 41001 },
      scrapeIntervalSecs: 1,
      rulesFile: '/abs/alerts.rules.yml',
    });
    expect(text).toContain("  - job_name: gateway\n    metrics_path: /metrics\n    static_configs:\n      - targets: ['127.0.0.1:41000']");
    expect(text).toContain(
      "  - job_name: quote-engine\n    metrics_path: /metrics\n    static_configs:\n      - targets: ['127.0.0.1:41001']",
    );
    expect(text).toContain('scrape_interval: 1s');
    expect(text).toContain('  - /abs/alerts.rules.yml');
  });

  it('starts nothing unless PROMETHEUS asks for it, and refuses a bad PROMETHEUS_PORT', async () => {
    const ports = { gateway: 1, 'quote-engine': 2, 'price-oracle': 3, 'gasless-relayer': 4, 'partner-service': 5 };
    await expect(startDevPrometheus('/nonexistent', ports, {})).resolves.toBeUndefined();
    await expect(startDevPrometheus('/nonexistent', ports, { PROMETHEUS: '0' })).resolves.toBeUndefined();
    await expect(startDevPrometheus('/nonexistent', ports, { PROMETHEUS: '1', PROMETHEUS_PORT: 'x' })).rejects.toThrow(
      'PROMETHEUS_PORT=x is not a port number',
    );
  });
});

describe('metricNamesIn', () => {
  it('finds the selected metrics and nothing else', () => {
    expect(metricNamesIn('price_age_seconds > on (job, instance) group_left () price_max_age_seconds')).toEqual([
      'price_age_seconds',
      'price_max_age_seconds',
    ]);
    expect(
      metricNamesIn(
        'sum by (job) (rate(http_requests_total{route!~"/livez|/readyz",status=~"5.."}[5m])) / sum by (job) (rate(http_requests_total[5m] offset 1m)) > 0.05 and on () vector(1e3)',
      ),
    ).toEqual(['http_requests_total']);
    expect(
      metricNamesIn(
        '(time() - chain_watcher_last_pass_timestamp_seconds > 300) or (chain_watcher_confirmations unless chain_watcher_last_pass_timestamp_seconds)',
      ),
    ).toEqual(['chain_watcher_confirmations', 'chain_watcher_last_pass_timestamp_seconds']);
    expect(metricNamesIn('up == 0')).toEqual(['up']);
  });
});
