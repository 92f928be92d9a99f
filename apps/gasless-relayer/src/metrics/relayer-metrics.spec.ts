import { FakeClock, Metrics, SystemClock } from '@xchain/service-kit';
import { Registry } from 'prom-client';
import { type LaneQueue, walletBalanceGauges, watchLanes } from './relayer-metrics';

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const lane = (chain: string, wallet: string, counts: Record<string, number>, oldestAt?: number, hang = false): LaneQueue => ({
  chain,
  wallet,
  queue: {
    getJobCounts: async () => (hang ? new Promise<Record<string, number>>(() => undefined) : counts),
    getWaiting: async () => (oldestAt === undefined ? [] : [{ timestamp: oldestAt }]),
  },
});

describe('relay lane metrics', () => {
  it('shows each lane’s jobs by state and the age of its oldest waiting job', async () => {
    const metrics = new Metrics(new Registry());
    const now = 1_000_000;
    watchLanes(
      metrics,
      () => [
        lane('base', '0xaa', { waiting: 3, active: 1, delayed: 2, prioritized: 0 }, now - 42_000),
        lane('base', '0xbb', { waiting: 0, active: 0, delayed: 0, prioritized: 0 }),
      ],
      new FakeClock(now),
    );
    const text = await metrics.render();
    expect(sample(text, 'relay_queue_jobs{chain="base",wallet="0xaa",state="waiting"}')).toBe(3);
    expect(sample(text, 'relay_queue_jobs{chain="base",wallet="0xaa",state="delayed"}')).toBe(2);
    expect(sample(text, 'relay_queue_oldest_job_age_seconds{chain="base",wallet="0xaa"}')).toBe(42);
    expect(sample(text, 'relay_queue_oldest_job_age_seconds{chain="base",wallet="0xbb"}')).toBe(0);
    expect(sample(text, 'metrics_collect_success{collector="relay_lanes"}')).toBe(1);
  });

  it('does not hang the scrape when Redis does not answer', async () => {
    const metrics = new Metrics(new Registry());
    watchLanes(metrics, () => [lane('base', '0xaa', {}, undefined, true)], new SystemClock());
    const started = Date.now();
    const text = await metrics.render();
    // The lane never answers: without the collector's deadline render would never end. Any finite
    // bound proves the deadline; a generous one cannot fail on a busy machine (speed is not the point).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(sample(text, 'metrics_collect_success{collector="relay_lanes"}')).toBe(0);
  }, 20_000);
});

describe('wallet balance metrics', () => {
  it('records each balance read with its floor', async () => {
    const metrics = new Metrics(new Registry());
    const observe = walletBalanceGauges(metrics, new FakeClock());
    observe('base', '0xAbC', 5_000_000_000_000_000n, 10_000_000_000_000_000n);
    const text = await metrics.render();
    expect(sample(text, 'relayer_wallet_balance_wei{chain="base",wallet="0xabc"}')).toBe(5e15);
    expect(sample(text, 'relayer_wallet_floor_wei{chain="base",wallet="0xabc"}')).toBe(1e16);
  });
});
