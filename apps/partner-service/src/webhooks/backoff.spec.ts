import { nextAttemptAt, retryDelayMs } from './backoff';

const DAY = 86_400_000;
const policy = { baseMs: 10_000, maxMs: 3_600_000, windowMs: DAY };

describe('webhook retry schedule', () => {
  it('doubles from the base and stops growing at the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => retryDelayMs(n, policy))).toEqual([
      10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_280_000, 2_560_000, 3_600_000,
    ]);
    expect(retryDelayMs(500, policy)).toBe(3_600_000);
    expect(retryDelayMs(0, policy)).toBe(10_000);
  });

  it('keeps retrying for 24 hours after the first attempt, then gives up', () => {
    const first = new Date('2026-11-23T00:00:00Z');
    let now = first;
    let attempts = 0;
    const times: Date[] = [];
    for (;;) {
      attempts += 1; // an attempt at `now` failed
      const next = nextAttemptAt(attempts, first, now, policy);
      if (!next) break;
      times.push(next);
      now = next;
    }
    const last = times[times.length - 1]!;
    expect(last.getTime() - first.getTime()).toBeLessThanOrEqual(DAY);
    // the next wait (the cap) would have crossed the 24 h line
    expect(last.getTime() + 3_600_000 - first.getTime()).toBeGreaterThan(DAY);
    // 1 + 9 doubling waits (10 s … 2560 s, 5110 s in all) + 22 hourly ones that fit in the rest of the day
    expect(attempts).toBe(32);
    expect(times.slice(0, 3).map((t) => t.getTime() - first.getTime())).toEqual([10_000, 30_000, 70_000]);
  });

  it('never schedules past the window, even when a slow attempt ends near it', () => {
    const first = new Date(0);
    expect(nextAttemptAt(3, first, new Date(DAY - 30_000), policy)).toBeUndefined(); // would be DAY + 10 s
    expect(nextAttemptAt(1, first, new Date(DAY - 10_000), policy)).toEqual(new Date(DAY)); // exactly at the line: still tried
  });
});
