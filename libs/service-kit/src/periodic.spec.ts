import { Periodic } from './periodic';

/** A pass that records itself and ends when told, so the test decides when each pass is running. */
function controlledPasses() {
  const ends: (() => void)[] = [];
  let started = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const waiters: (() => void)[] = [];
  const run = () =>
    new Promise<void>((resolve) => {
      started++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      ends.push(() => {
        inFlight--;
        resolve();
      });
      for (const w of waiters.splice(0)) w();
    });
  const startedCount = async (n: number) => {
    const deadline = Date.now() + 2000;
    while (started < n) {
      if (Date.now() > deadline) throw new Error(`only ${started} passes started, expected ${n}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 50);
      });
    }
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
});
