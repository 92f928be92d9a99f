import { untilHolds } from '@xchain/stack';
import { Periodic } from './periodic';

/** A pass that records itself and ends when told, so the test decides when each pass is running. */
function controlledPasses() {
  const ends: (() => void)[] = [];
  let started = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const run = () =>
    new Promise<void>((resolve) => {
      started++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      ends.push(() => {
        inFlight--;
        resolve();
      });
    });
  const startedCount = async (n: number) => {
    await untilHolds(
      `${n} passes started`,
      async () => started,
      (s) => s >= n,
      { timeoutMs: 2000, everyMs: 10 },
    );
  };
  return { run, ends, startedCount, started: () => started, maxInFlight: () => maxInFlight };
}

describe('Periodic', () => {
  it('runs a pass at once when woken, instead of waiting out the interval', async () => {
    const c = controlledPasses();
    const p = new Periodic(c.run, 60_000, () => undefined);
    p.start();
    await c.startedCount(1);
    c.ends[0]!();
    p.wake(); // may land before or after the first pass has fully ended: either way a second pass runs now
    await c.startedCount(2);
    c.ends[1]!();
    await p.stop();
    expect(c.started()).toBe(2);
  });

  it('never runs two passes at once: a wake during a pass runs one more right after it', async () => {
    const c = controlledPasses();
    const p = new Periodic(c.run, 60_000, () => undefined);
    p.start();
    await c.startedCount(1);
    p.wake();
    p.wake();
    expect(c.started()).toBe(1);
    c.ends[0]!();
    await c.startedCount(2);
    c.ends[1]!();
    await p.stop();
    expect(c.maxInFlight()).toBe(1);
    expect(c.started()).toBe(2); // two wakes during one pass make one more pass, not two
  });

  it('does nothing when woken before start or after stop', async () => {
    const c = controlledPasses();
    const p = new Periodic(c.run, 60_000, () => undefined);
    p.wake();
    expect(c.started()).toBe(0);
    p.start();
    await c.startedCount(1);
    c.ends[0]!();
    await p.stop();
    p.wake();
    expect(c.started()).toBe(1);
  });

  it('waits `firstAfterMs` for the first pass when asked, and a wake before it runs one at once', async () => {
    const c = controlledPasses();
    const p = new Periodic(c.run, 60_000, () => undefined, { firstAfterMs: 60_000, unref: true });
    p.start();
    await new Promise((r) => setTimeout(r, 20));
    expect(c.started()).toBe(0);
    p.wake();
    await c.startedCount(1);
    c.ends[0]!();
    await p.stop();
    expect(c.started()).toBe(1);
  });

  describe('with idleMaxMs', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    /** Runs the loop with passes that answer from `answers` in turn, and records when each pass began (fake ms). */
    async function passTimes(answers: unknown[], advanceMs: number) {
      const at: number[] = [];
      const started = Date.now();
      const p = new Periodic(
        async () => {
          at.push(Date.now() - started);
          return answers[Math.min(at.length - 1, answers.length - 1)];
        },
        100,
        () => undefined,
        { idleMaxMs: 800 },
      );
      p.start();
      await jest.advanceTimersByTimeAsync(advanceMs);
      await p.stop();
      return at;
    }

    it('doubles the pause after each idle pass, up to idleMaxMs', async () => {
      const idle = Periodic.IDLE;
      expect(await passTimes([idle], 3000)).toEqual([0, 200, 600, 1400, 2200, 3000]);
    });

    it('goes back to everyMs after a pass that found work', async () => {
      const idle = Periodic.IDLE;
      // idle, idle, busy, idle: pauses 200, 400, 100, 200, 400 …
      expect(await passTimes([idle, idle, 'busy', idle], 1400)).toEqual([0, 200, 600, 700, 900, 1300]);
    });

    it('a wake ends a long idle pause at once and starts again from everyMs', async () => {
      const times: number[] = [];
      const started = Date.now();
      const p = new Periodic(
        async () => {
          times.push(Date.now() - started);
          return Periodic.IDLE;
        },
        100,
        () => undefined,
        { idleMaxMs: 800 },
      );
      p.start();
      await jest.advanceTimersByTimeAsync(1500); // passes at 0, 200, 600, 1400; the next is due at 2200
      p.wake();
      await jest.advanceTimersByTimeAsync(250); // woken at 1500, then idle pauses restart at 200
      await p.stop();
      expect(times).toEqual([0, 200, 600, 1400, 1500, 1700]);
    });
  });
});
