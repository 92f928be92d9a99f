import type { Price } from '@xchain/contracts';
import { FakeClock } from '@xchain/service-kit';
import pino from 'pino';
import { PricePoller } from './price-poller';
import { SourceMonitor } from './source-health';
import { until } from '@xchain/stack';
import type { Feed, PriceSource, SourceName } from './sources/source';

const log = pino({ level: 'silent' });
const feeds: Feed[] = [
  { price_id: 'ethereum', symbol: 'ETH' },
  { price_id: 'usd-coin', symbol: 'USDC' },
];

/** A source answering whatever the test sets, or throwing. */
class FakeSource implements PriceSource {
  answer: (nowSecs: number) => Price[] = () => [];
  constructor(readonly name: SourceName) {}
  covers(): boolean {
    return true;
  }
  async fetch(_feeds: readonly Feed[], nowSecs: number): Promise<Price[]> {
    return this.answer(nowSecs);
  }
}

const price = (source: SourceName, price_id: string, value: string, publish_time: number): Price => ({
  price_id,
  price: value,
  expo: -8,
  conf: '0',
  publish_time,
  source,
});

function setup(order: SourceName[]) {
  const clock = new FakeClock(1_795_372_260_000);
  const sources = order.map((name) => new FakeSource(name));
  const monitored = sources.map((source) => ({ source, monitor: new SourceMonitor(source.name, 5000, log) }));
  const sink: Price[] = [];
  const poller = new PricePoller(monitored, () => feeds, { put: async (p) => void sink.push(p) }, log, {
    pollMs: 1000,
    maxAgeSecs: 60,
    clock,
  });
  return {
    poller,
    sink,
    source: (name: SourceName) => sources.find((s) => s.name === name)!,
    monitor: (name: SourceName) => monitored.find((m) => m.source.name === name)!.monitor,
    secs: () => clock.nowSecs(),
    advance: (ms: number) => clock.advance(ms),
  };
}

describe('PricePoller', () => {
  it('publishes, per price id, the first fresh value in priority order', async () => {
    const t = setup(['pyth', 'chainlink', 'file']);
    t.source('pyth').answer = (now) => [
      price('pyth', 'ethereum', '351200000000', now - 1),
      price('pyth', 'usd-coin', '99990000', now - 3600),
    ];
    t.source('chainlink').answer = (now) => [price('chainlink', 'usd-coin', '100010000', now - 30)];
    t.source('file').answer = (now) => feeds.map((f) => price('file', f.price_id, '1', now));
    await t.poller.tick();
    expect(t.sink.map((p) => `${p.price_id}:${p.source}`)).toEqual(['ethereum:pyth', 'usd-coin:chainlink']);
  });

  it('falls back when the preferred source fails, and every source is judged on its own', async () => {
    const t = setup(['pyth', 'file']);
    t.source('pyth').answer = () => {
      throw new Error('Hermes answered HTTP 502');
    };
    t.source('file').answer = (now) => feeds.map((f) => price('file', f.price_id, '1', now));
    await t.poller.tick();
    expect(t.sink.map((p) => p.source)).toEqual(['file', 'file']);
    expect(t.monitor('pyth').observe(Date.now()).detail).toBe('failing: Hermes answered HTTP 502');
    expect(t.monitor('file').status(t.secs() * 1000).ok).toBe(true);
  });

  it('never republishes a value that stopped changing, and never moves a price back in time', async () => {
    const t = setup(['pyth', 'chainlink']);
    const frozen = t.secs() - 2;
    t.source('pyth').answer = () => [price('pyth', 'ethereum', '351200000000', frozen)];
    t.source('chainlink').answer = () => [price('chainlink', 'ethereum', '350000000000', frozen - 10)];
    await t.poller.tick();
    t.advance(1000);
    await t.poller.tick();
    expect(t.sink).toHaveLength(1);
    // Pyth goes quiet: Chainlink's value is older than the one published, so it is not used.
    t.source('pyth').answer = () => [];
    t.advance(1000);
    await t.poller.tick();
    expect(t.sink).toHaveLength(1);
    // Once Pyth's frozen value is past the max age it is not fresh; nothing newer exists: nothing published.
    t.advance(70_000);
    await t.poller.tick();
    expect(t.sink).toHaveLength(1);
    expect(t.monitor('pyth').observe(t.secs() * 1000).ok).toBe(false);
  });

  it('after a restart, never publishes a value older than what the bucket already holds', async () => {
    const t = setup(['pyth']);
    const newer = price('pyth', 'ethereum', '351300000000', t.secs() - 1);
    t.source('pyth').answer = (now) => [price('pyth', 'ethereum', '351200000000', now - 5), price('pyth', 'usd-coin', '99990000', now - 5)];
    const sink: Price[] = [];
    const poller = new PricePoller(
      [{ source: t.source('pyth'), monitor: t.monitor('pyth') }],
      () => feeds,
      { put: async (p) => void sink.push(p), current: async () => [newer] },
      log,
      { pollMs: 1000, maxAgeSecs: 60, clock: new FakeClock(t.secs() * 1000) },
    );
    await poller.tick();
    expect(sink.map((p) => p.price_id)).toEqual(['usd-coin']);
  });

  it('retries a value whose publication failed on the next tick', async () => {
    const t = setup(['file']);
    t.source('file').answer = (now) => [price('file', 'ethereum', '1', now)];
    let fail = true;
    const published: Price[] = [];
    const monitored = [{ source: t.source('file'), monitor: t.monitor('file') }];
    const poller = new PricePoller(
      monitored,
      () => feeds,
      {
        put: async (p) => {
          if (fail) throw new Error('no JetStream');
          published.push(p);
        },
      },
      log,
      { pollMs: 1000, maxAgeSecs: 60, clock: new FakeClock(t.secs() * 1000) },
    );
    expect(await poller.tick()).toEqual([]);
    fail = false;
    expect(await poller.tick()).toHaveLength(1);
  });

  it('polls as soon as feeds are known, then on its interval, and stops cleanly', async () => {
    let list: Feed[] = [];
    const source = new FakeSource('file');
    let polls = 0;
    source.answer = (now) => {
      polls++;
      return [price('file', 'ethereum', '1', now)];
    };
    let puts = 0;
    const poller = new PricePoller(
      [{ source, monitor: new SourceMonitor('file', 5000, log) }],
      () => list,
      { put: async () => void puts++ },
      log,
      {
        pollMs: 3_600_000,
        maxAgeSecs: 60,
      },
    );
    poller.start();
    list = feeds;
    poller.poke();
    // The positive signal: the poke's poll published. Had the start polled with no feeds, or the
    // poke polled twice, `polls` would be past 1 by then (the next interval is an hour away).
    await until('the poked poll to publish', async () => (puts > 0 ? true : undefined), { timeoutMs: 5000 });
    expect(polls).toBe(1);
    await poller.stop();
  });
});
