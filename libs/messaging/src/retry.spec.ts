import { Backoff, retryWithBackoff, sleep } from './retry';

describe('Backoff', () => {
  it('starts at initialMs, grows by the factor and stops at maxMs; reset starts over', () => {
    const b = new Backoff({ initialMs: 250, maxMs: 5000 });
    expect([1, 2, 3, 4, 5, 6, 7].map(() => b.next())).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
    b.reset();
    expect(b.next()).toBe(250);
    const tripling = new Backoff({ initialMs: 100, maxMs: 1000, factor: 3 });
    expect([1, 2, 3, 4].map(() => tripling.next())).toEqual([100, 300, 900, 1000]);
  });

  it('takes at most the jitter fraction off each wait', () => {
    const low = new Backoff({ initialMs: 1000, maxMs: 8000, jitter: 0.5, random: () => 1 });
    expect([1, 2].map(() => low.next())).toEqual([500, 1000]);
    const none = new Backoff({ initialMs: 1000, maxMs: 8000, jitter: 0.5, random: () => 0 });
    expect(none.next()).toBe(1000);
    const real = new Backoff({ initialMs: 1000, maxMs: 1000, jitter: 0.2 });
    for (let i = 0; i < 50; i++) {
      const w = real.next();
      expect(w).toBeGreaterThanOrEqual(800);
      expect(w).toBeLessThanOrEqual(1000);
    }
  });

  it('refuses settings that would spin or never wait', () => {
    expect(() => new Backoff({ initialMs: 0, maxMs: 10 })).toThrow(/initialMs/);
    expect(() => new Backoff({ initialMs: 20, maxMs: 10 })).toThrow(/initialMs/);
    expect(() => new Backoff({ initialMs: 1, maxMs: 10, factor: 0.5 })).toThrow(/factor/);
    expect(() => new Backoff({ initialMs: 1, maxMs: 10, jitter: 2 })).toThrow(/jitter/);
  });
});

describe('retryWithBackoff', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('retries a failing call after 100, 200, 400 ms and answers its first success', async () => {
    const calls: number[] = [];
    const waits: number[] = [];
    const fn = jest.fn(async (attempt: number) => {
      calls.push(Date.now());
      if (attempt < 4) throw new Error(`fail ${attempt}`);
      return 'done';
    });
    const start = Date.now();
    const result = retryWithBackoff(fn, { initialMs: 100, maxMs: 1000, onError: (_e, _a, w) => waits.push(w) });
    await jest.advanceTimersByTimeAsync(99);
    expect(fn).toHaveBeenCalledTimes(1); // the first wait is not over yet
    await jest.advanceTimersByTimeAsync(1000);
    await expect(result).resolves.toBe('done');
    expect(waits).toEqual([100, 200, 400]);
    expect(calls.map((t) => t - start)).toEqual([0, 100, 300, 700]);
  });

  it('an abort ends the wait at once with the reason and calls no more', async () => {
    const ctrl = new AbortController();
    const fn = jest.fn(async () => {
      throw new Error('down');
    });
    const result = retryWithBackoff(fn, { initialMs: 10_000, maxMs: 10_000, signal: ctrl.signal });
    const settled = result.catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(50);
    ctrl.abort(new Error('stopping'));
    await expect(settled).resolves.toEqual(new Error('stopping'));
    await jest.advanceTimersByTimeAsync(60_000);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('does not call at all when already aborted', async () => {
    const fn = jest.fn(async () => 1);
    await expect(retryWithBackoff(fn, { initialMs: 1, maxMs: 1, signal: AbortSignal.abort(new Error('gone')) })).rejects.toThrow('gone');
    expect(fn).not.toHaveBeenCalled();
  });

  it('sleep resolves after its time and leaves no timer behind on abort', async () => {
    let done = false;
    void sleep(500).then(() => (done = true));
    await jest.advanceTimersByTimeAsync(499);
    expect(done).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
    const ctrl = new AbortController();
    const aborted = sleep(500, ctrl.signal).catch((e: unknown) => e);
    ctrl.abort(new Error('x'));
    await expect(aborted).resolves.toEqual(new Error('x'));
    expect(jest.getTimerCount()).toBe(0);
  });
});
