import { quoteRow } from './quote-row.testing';
import { QuoteWriter, type QuoteRow, type QuoteSink } from './quote-writer';

const row = (n: number): QuoteRow =>
  quoteRow(`0x${n.toString(16).padStart(64, '0')}`, { dstChain: 'arbitrum', expiresAt: new Date(0), retainedUntil: new Date(0) });

/** A sink whose statements commit (or fail) only when the test says so. */
function manualSink() {
  const statements: { rows: QuoteRow[]; commit: () => void; fail: (err: Error) => void }[] = [];
  const sink: QuoteSink = {
    insert: (rows) =>
      new Promise<void>((resolve, reject) => {
        statements.push({ rows: [...rows], commit: resolve, fail: reject });
      }),
  };
  return { sink, statements };
}

/** Settled state of each promise, read after pending callbacks ran. */
async function states(ps: Promise<void>[]): Promise<string[]> {
  const out = ps.map(() => 'pending');
  ps.forEach((p, i) =>
    p.then(
      () => (out[i] = 'stored'),
      () => (out[i] = 'failed'),
    ),
  );
  await new Promise((r) => setImmediate(r));
  return out;
}

describe('QuoteWriter (group commit)', () => {
  it('sends a lone row at once, batches the rows that arrive while statements are in flight, and answers each only after its statement committed', async () => {
    const { sink, statements } = manualSink();
    const writer = new QuoteWriter(sink, { maxInFlight: 1, maxBatch: 100 });
    const first = writer.store(row(1));
    expect(statements.map((s) => s.rows.length)).toEqual([1]);
    const rest = [2, 3, 4].map((n) => writer.store(row(n)));
    expect(statements).toHaveLength(1); // they wait for the statement in flight
    expect(await states([first, ...rest])).toEqual(['pending', 'pending', 'pending', 'pending']);

    statements[0]!.commit();
    expect(await states([first, ...rest])).toEqual(['stored', 'pending', 'pending', 'pending']);
    expect(statements.map((s) => s.rows.map((r) => r.quoteHash.slice(-1)))).toEqual([['1'], ['2', '3', '4']]);

    statements[1]!.commit();
    expect(await states(rest)).toEqual(['stored', 'stored', 'stored']);
  });

  it('fails every caller of a failed statement and none of another', async () => {
    const { sink, statements } = manualSink();
    const writer = new QuoteWriter(sink, { maxInFlight: 2, maxBatch: 100 });
    const a = writer.store(row(1));
    const b = writer.store(row(2));
    const c = [3, 4].map((n) => writer.store(row(n)));
    expect(statements.map((s) => s.rows.length)).toEqual([1, 1]);
    statements[1]!.fail(new Error('connection lost'));
    await expect(b).rejects.toThrow('connection lost');
    expect(statements.map((s) => s.rows.length)).toEqual([1, 1, 2]);
    statements[2]!.fail(new Error('duplicate key'));
    statements[0]!.commit();
    expect(await states([a, ...c])).toEqual(['stored', 'failed', 'failed']);
  });

  describe('with overflowAfterMs', () => {
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
    afterEach(() => jest.useRealTimers());

    it('keeps rows that arrive behind a statement for the next one, and sends them on another connection only once it has run that long', async () => {
      const { sink, statements } = manualSink();
      const writer = new QuoteWriter(sink, { maxInFlight: 2, maxBatch: 100, overflowAfterMs: 10 });
      const first = writer.store(row(1));
      const held = [2, 3].map((n) => writer.store(row(n)));
      expect(statements.map((s) => s.rows.length)).toEqual([1]); // a second connection is free, but not used yet

      jest.advanceTimersByTime(9);
      expect(statements).toHaveLength(1);
      jest.advanceTimersByTime(1); // the first statement has run 10 ms: a stall
      expect(statements.map((s) => s.rows.map((r) => r.quoteHash.slice(-1)))).toEqual([['1'], ['2', '3']]);
      statements[1]!.commit();
      expect(await states([first, ...held])).toEqual(['pending', 'stored', 'stored']);

      // The stalled statement is still in flight and has run past the limit: a new row goes at once.
      const late = writer.store(row(4));
      expect(statements.map((s) => s.rows.length)).toEqual([1, 2, 1]);
      statements[2]!.commit();
      statements[0]!.commit();
      expect(await states([first, late])).toEqual(['stored', 'stored']);
    });

    it('sends the rows held behind a statement with the next one when it commits in time', async () => {
      const { sink, statements } = manualSink();
      const writer = new QuoteWriter(sink, { maxInFlight: 2, maxBatch: 100, overflowAfterMs: 10 });
      const first = writer.store(row(1));
      jest.advanceTimersByTime(4);
      const held = [2, 3, 4].map((n) => writer.store(row(n)));
      statements[0]!.commit();
      expect(await states([first, ...held])).toEqual(['stored', 'pending', 'pending', 'pending']);
      expect(statements.map((s) => s.rows.length)).toEqual([1, 3]); // one statement for the three
      jest.advanceTimersByTime(100);
      expect(statements).toHaveLength(2); // nothing was waiting: no further statement
      statements[1]!.commit();
      expect(await states(held)).toEqual(['stored', 'stored', 'stored']);
    });
  });

  describe('with gatherTurn', () => {
    const turn = () => new Promise((r) => setImmediate(r));
    /** Lets pending promise callbacks run, and nothing queued for a later turn. */
    const microtasks = async () => {
      for (let i = 0; i < 10; i++) await Promise.resolve();
    };

    it('sends the rows that arrive in one event-loop turn as one statement, and sends at once what waited behind a statement', async () => {
      const { sink, statements } = manualSink();
      const writer = new QuoteWriter(sink, { maxInFlight: 1, maxBatch: 100, gatherTurn: true });
      const together = [1, 2, 3].map((n) => writer.store(row(n)));
      expect(statements).toHaveLength(0); // the turn is not over
      await turn();
      expect(statements.map((s) => s.rows.length)).toEqual([3]);

      const behind = [4, 5].map((n) => writer.store(row(n)));
      await turn();
      expect(statements).toHaveLength(1); // they wait for the statement in flight
      statements[0]!.commit();
      await microtasks();
      expect(statements.map((s) => s.rows.length)).toEqual([3, 2]); // no turn waited for: they had waited already
      expect(await states(together)).toEqual(['stored', 'stored', 'stored']);
      statements[1]!.commit();
      expect(await states(behind)).toEqual(['stored', 'stored']);

      const lone = writer.store(row(6));
      await turn();
      expect(statements.map((s) => s.rows.length)).toEqual([3, 2, 1]);
      statements[2]!.commit();
      expect(await states([lone])).toEqual(['stored']);
    });

    it('on shutdown still sends the rows of the last turn before it closes', async () => {
      const { sink, statements } = manualSink();
      const close = jest.fn().mockResolvedValue(undefined);
      const writer = new QuoteWriter(sink, { maxInFlight: 1, maxBatch: 10, gatherTurn: true }, close);
      const ps = [writer.store(row(1)), writer.store(row(2))];
      const shut = writer.onApplicationShutdown();
      await turn();
      expect(statements.map((s) => s.rows.length)).toEqual([2]);
      expect(close).not.toHaveBeenCalled();
      statements[0]!.commit();
      await shut;
      expect(close).toHaveBeenCalledTimes(1);
      expect(await states(ps)).toEqual(['stored', 'stored']);
    });
  });

  it('caps the rows of one statement', async () => {
    const { sink, statements } = manualSink();
    const writer = new QuoteWriter(sink, { maxInFlight: 1, maxBatch: 3 });
    const all = Array.from({ length: 8 }, (_, i) => writer.store(row(i)));
    for (let i = 0; i < 4 && statements[i]; i++) {
      statements[i]!.commit();
      await new Promise((r) => setImmediate(r));
    }
    expect(statements.map((s) => s.rows.length)).toEqual([1, 3, 3, 1]);
    expect(new Set(await states(all))).toEqual(new Set(['stored']));
  });

  it('on shutdown lets the statements in flight and the rows waiting commit before it closes', async () => {
    const { sink, statements } = manualSink();
    const close = jest.fn().mockResolvedValue(undefined);
    const writer = new QuoteWriter(sink, { maxInFlight: 1, maxBatch: 10 }, close);
    const ps = [writer.store(row(1)), writer.store(row(2))];
    const shut = writer.onApplicationShutdown();
    await new Promise((r) => setImmediate(r));
    expect(close).not.toHaveBeenCalled();
    statements[0]!.commit();
    await new Promise((r) => setImmediate(r));
    statements[1]!.commit();
    await shut;
    expect(close).toHaveBeenCalledTimes(1);
    expect(await states(ps)).toEqual(['stored', 'stored']);
  });
});
