import {
  Counter,
  Gauge,
  Histogram,
  collectDefaultMetrics,
  register,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
  type Registry,
} from 'prom-client';

/** Where every service serves its metrics, on the same HTTP port as `/livez` and `/readyz`. */
export const METRICS_PATH = '/metrics';

/** Longest a scrape-time collector (a Redis or database read) may take before the scrape goes on without it. */
export const DEFAULT_COLLECT_DEADLINE_MS = 1000;

interface Collector {
  name: string;
  collect: () => Promise<void> | void;
  deadlineMs: number;
}

/**
 * The process's metrics: one prom-client registry (by default prom-client's own, which the bus
 * metrics of `@xchain/messaging` also use), helpers that create a metric once however often they
 * are asked for it, and collectors that read a value at scrape time (queue depths, balances held
 * in a database) each under a deadline, so a slow dependency never hangs `/metrics`: the scrape
 * goes on without it and `metrics_collect_success{collector}` says 0.
 */
export class Metrics {
  private readonly collectors: Collector[] = [];
  private readonly collectSuccess: Gauge<'collector'>;
  private readonly collectDuration: Gauge<'collector'>;
  private defaultsOn = false;

  constructor(readonly registry: Registry = register) {
    this.collectSuccess = this.gauge({
      name: 'metrics_collect_success',
      help: 'Whether a scrape-time collector finished within its deadline at the last scrape (1) or not (0)',
      labelNames: ['collector'],
    });
    this.collectDuration = this.gauge({
      name: 'metrics_collect_duration_seconds',
      help: 'How long a scrape-time collector took at the last scrape',
      labelNames: ['collector'],
    });
  }

  /** Node's process metrics (CPU, memory, event loop lag, GC, handles), once per registry. */
  enableProcessMetrics(): void {
    if (this.defaultsOn || this.registry.getSingleMetric('process_cpu_user_seconds_total')) return;
    collectDefaultMetrics({ register: this.registry });
    this.defaultsOn = true;
  }

  counter<T extends string>(cfg: Omit<CounterConfiguration<T>, 'registers'>): Counter<T> {
    return (this.registry.getSingleMetric(cfg.name) as Counter<T> | undefined) ?? new Counter({ ...cfg, registers: [this.registry] });
  }

  gauge<T extends string>(cfg: Omit<GaugeConfiguration<T>, 'registers'>): Gauge<T> {
    return (this.registry.getSingleMetric(cfg.name) as Gauge<T> | undefined) ?? new Gauge({ ...cfg, registers: [this.registry] });
  }

  histogram<T extends string>(cfg: Omit<HistogramConfiguration<T>, 'registers'>): Histogram<T> {
    return (this.registry.getSingleMetric(cfg.name) as Histogram<T> | undefined) ?? new Histogram({ ...cfg, registers: [this.registry] });
  }

  /**
   * Runs `collect` before every scrape, at most `deadlineMs`. It sets its gauges itself (reading
   * everything first and setting them after, so a late answer never leaves half a picture).
   */
  onScrape(name: string, collect: () => Promise<void> | void, deadlineMs = DEFAULT_COLLECT_DEADLINE_MS): void {
    this.collectors.push({ name, collect, deadlineMs });
  }

  /** The exposition text of every metric, after running the collectors (concurrently). */
  async render(): Promise<string> {
    await Promise.all(
      this.collectors.map(async (c) => {
        const started = process.hrtime.bigint();
        const ok = await withDeadline(c.collect, c.deadlineMs);
        this.collectSuccess.set({ collector: c.name }, ok ? 1 : 0);
        this.collectDuration.set({ collector: c.name }, Number(process.hrtime.bigint() - started) / 1e9);
      }),
    );
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** True when `fn` settled successfully within `ms`; a late or failed run counts as false (never throws). */
async function withDeadline(fn: () => Promise<void> | void, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve()
        .then(fn)
        .then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
      }),
    ]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** The process's one Metrics, on prom-client's default registry (shared with the bus metrics). */
export const processMetrics = new Metrics();
