import { UntilTimeout, until, untilHolds } from './until';

describe('until', () => {
  it('returns the first answer that is neither undefined nor false', async () => {
    let n = 0;
    const probe = async () => (++n < 3 ? (n === 1 ? undefined : false) : n);
    await expect(until('the third ask', probe, { everyMs: 1 })).resolves.toBe(3);
  });

  it('counts a throw as "not yet" and names the last error when the deadline passes', async () => {
    let n = 0;
    const probe = () => {
      n += 1;
      throw new Error(`no ${n}`);
    };
    const err = (await until('an answer', probe, { timeoutMs: 20, everyMs: 1 }).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^timed out after 20 ms waiting for an answer: Error: no \d+$/);
    expect(err.message).toContain(`no ${n}`);
  });

  it('ends at the first throw when asked to', async () => {
    let n = 0;
    const probe = () => {
      n += 1;
      throw new Error('broken');
    };
    await expect(until('an answer', probe, { failOnError: true, everyMs: 1 })).rejects.toThrow('broken');
    expect(n).toBe(1);
  });

  it('adds what `detail` says to the timeout message', async () => {
    const seen = ['a', 'b'];
    await expect(
      until('c', () => seen.includes('c'), { timeoutMs: 10, everyMs: 1, detail: () => `seen ${seen.join(', ')}` }),
    ).rejects.toThrow('timed out after 10 ms waiting for c; seen a, b');
  });

  it('untilHolds returns the answer that holds, and names the last answer when none did', async () => {
    let n = 0;
    await expect(
      untilHolds(
        'three',
        async () => ++n,
        (v) => v === 3,
        { everyMs: 1 },
      ),
    ).resolves.toBe(3);
    const late = (await untilHolds(
      'a big one',
      async () => ({ n: 1n }),
      (v) => v.n > 5n,
      { timeoutMs: 10, everyMs: 1 },
    ).catch((e: unknown) => e)) as Error;
    expect(late).toBeInstanceOf(UntilTimeout);
    expect(late.message).toBe('timed out after 10 ms waiting for a big one; last answer {"n":"1"}');
    await expect(
      untilHolds(
        'x',
        () => Promise.reject(new Error('down')),
        () => true,
      ),
    ).rejects.toThrow('down');
  });
});
