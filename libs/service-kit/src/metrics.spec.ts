import { Registry } from 'prom-client';
import { Metrics } from './metrics';

/** The value of one sample in an exposition text, or undefined when the line is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('Metrics', () => {
  it('gives the same metric however often it is asked for (one per name per registry)', () => {
    const m = new Metrics(new Registry());
    const a = m.counter({ name: 'things_total', help: 'h', labelNames: ['kind'] });
    const b = m.counter({ name: 'things_total', help: 'h', labelNames: ['kind'] });
    expect(b).toBe(a);
  });

  it('runs scrape-time collectors and reports each one’s success', async () => {
    const m = new Metrics(new Registry());
    const g = m.gauge({ name: 'depth', help: 'h' });
    let depth = 3;
    m.onScrape('queue', async () => g.set(depth));
    m.onScrape('broken', async () => {
      throw new Error('redis down');
    });
    let text = await m.render();
    expect(sample(text, 'depth')).toBe(3);
    expect(sample(text, 'metrics_collect_success{collector="queue"}')).toBe(1);
    expect(sample(text, 'metrics_collect_success{collector="broken"}')).toBe(0);
    depth = 5;
    text = await m.render();
    expect(sample(text, 'depth')).toBe(5);
  });

  it('answers within the deadline when a collector hangs (a slow Redis never hangs /metrics)', async () => {
    const m = new Metrics(new Registry());
    m.gauge({ name: 'alive', help: 'h' }).set(1);
    m.onScrape('stuck', () => new Promise<void>(() => undefined), 50);
    const started = Date.now();
    const text = await m.render();
    // The collector never resolves: without its deadline render would never end. Any finite bound
    // proves the deadline; a generous one cannot fail on a busy machine (speed is not the point).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(sample(text, 'alive')).toBe(1);
    expect(sample(text, 'metrics_collect_success{collector="stuck"}')).toBe(0);
  }, 20_000);

  it('adds the process metrics once', async () => {
    const m = new Metrics(new Registry());
    m.enableProcessMetrics();
    m.enableProcessMetrics();
    const text = await m.render();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(m.contentType).toContain('text/plain');
  });
});
