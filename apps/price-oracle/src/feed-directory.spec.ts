import { Code, RpcError } from '@xchain/contracts';
import pino from 'pino';
import { FeedDirectory } from './feed-directory';
import type { Feed } from './sources/source';
import { until } from '@xchain/stack';

const log = pino({ level: 'silent' });
const FEEDS: Feed[] = [{ price_id: 'ethereum', symbol: 'ETH' }];

describe('FeedDirectory', () => {
  it('retries with growing delays until the quote-engine answers, then reports the list once', async () => {
    const calls: number[] = [];
    const changes: (readonly Feed[])[] = [];
    const rpc = {
      call: async () => {
        calls.push(Date.now());
        if (calls.length < 4) throw RpcError.unavailable('quote-engine is unavailable', 'SERVICE_UNAVAILABLE');
        return { feeds: FEEDS };
      },
    };
    const dir = new FeedDirectory(rpc as never, log, { refreshMs: 60_000, minBackoffMs: 20, maxBackoffMs: 1000 }, (f) => changes.push(f));
    dir.start();
    await until('the first feed list', () => changes.length > 0, { timeoutMs: 2000, everyMs: 10 });
    await dir.stop();
    expect(changes).toEqual([FEEDS]);
    expect(dir.feeds).toEqual(FEEDS);
    const gaps = calls.slice(1).map((t, i) => t - calls[i]!);
    // Timers never fire early, so the doubling delays (20, 40, 80 ms) are lower bounds on the gaps;
    // comparing gaps with each other would flake on a loaded machine, where any gap can stretch.
    expect(gaps[0]!).toBeGreaterThanOrEqual(19);
    expect(gaps[1]!).toBeGreaterThanOrEqual(39);
    expect(gaps[2]!).toBeGreaterThanOrEqual(79);
  });

  it('keeps the last list when a refresh fails', async () => {
    let n = 0;
    const rpc = {
      call: async () => {
        n++;
        if (n > 1) throw new RpcError(Code.DEADLINE_EXCEEDED, 'slow');
        return { feeds: FEEDS };
      },
    };
    const dir = new FeedDirectory(rpc as never, log, { refreshMs: 10, minBackoffMs: 10 }, () => undefined);
    dir.start();
    await until('two failed refreshes after the first list', async () => (n > 2 ? true : undefined), { timeoutMs: 5000 });
    await dir.stop();
    expect(n).toBeGreaterThan(2);
    expect(dir.feeds).toEqual(FEEDS);
  });
});
