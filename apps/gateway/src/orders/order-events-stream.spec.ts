import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { OrderStatus, OrderUpdate } from '@xchain/contracts';
import { SystemClock } from '@xchain/service-kit';
import { sseEventId, streamOrderEvents } from './order-events-stream';

const HASH = `0x${'ab'.repeat(32)}`;
const view = (status: OrderStatus['status'], retainedUntil = '2099-01-01T00:00:00Z'): OrderStatus => ({
  quote_hash: HASH,
  status,
  terminal: status === 'fulfilled' || status === 'refunded' || status === 'expired',
  src_chain: 'base',
  dst_chain: 'arbitrum',
  src_token: '0x0000000000000000000000000000000000000000',
  dst_token: '0x0000000000000000000000000000000000000000',
  amount_in: '1000',
  amount_out: '990',
  min_amount_out: '980',
  quoted_at: '2026-11-23T10:00:00Z',
  expires_at: '2026-11-23T10:00:03Z',
  retained_until: retainedUntil,
});
const update = (version: number, order: OrderStatus): OrderUpdate => ({
  event_id: `${HASH}:${version}`,
  quote_hash: HASH,
  version,
  occurred_at: '2026-11-23T10:00:01Z',
  order,
});

/** A response that records what was written, and can be closed by the "client". */
function fakeResponse() {
  const res = new EventEmitter() as EventEmitter & {
    chunks: string[];
    writableEnded: boolean;
    write: (c: string) => boolean;
    end: () => void;
  };
  res.chunks = [];
  res.writableEnded = false;
  res.write = (c: string) => (res.chunks.push(c), true);
  res.end = () => {
    res.writableEnded = true;
    res.emit('close');
  };
  const events = () =>
    res.chunks
      .filter((c) => c.startsWith('id: '))
      .map(
        (c) =>
          JSON.parse(
            c
              .split('\n')
              .find((l) => l.startsWith('data: '))!
              .slice(6),
          ) as OrderStatus,
      );
  return { res, events, raw: res as unknown as ServerResponse };
}

describe('streamOrderEvents (SSE of one order)', () => {
  // The system clock: the test with fake timers moves it with them.
  const base = { heartbeatMs: 1000, maxDurationMs: 60_000, retryMs: 2000, clock: new SystemClock() };

  it('sends the view first, then each newer version once, ignoring older and repeated ones', async () => {
    const { res, events, raw } = fakeResponse();
    let push: (u: OrderUpdate) => void = () => undefined;
    const over = streamOrderEvents(raw, { ...base, fetchView: async () => view('quoted'), follow: (l) => ((push = l), () => undefined) });
    await new Promise((r) => setImmediate(r));
    push(update(2, view('deposited')));
    push(update(1, view('quoted'))); // older than what was sent
    push(update(2, view('deposited'))); // a repeat
    push(update(3, view('fulfilled')));
    expect(events().map((v) => v.status)).toEqual(['quoted', 'deposited', 'fulfilled']);
    expect(res.chunks[0]).toBe('retry: 2000\n\n');
    expect(res.chunks[1]).toBe(`id: ${sseEventId(view('quoted'))}\nevent: order\ndata: ${JSON.stringify(view('quoted'))}\n\n`);
    res.emit('close');
    await over;
  });

  it('does not resend the view a resuming client has, and reads the view again when updates arrived while it was read', async () => {
    const first = fakeResponse();
    const same = streamOrderEvents(first.raw, {
      ...base,
      lastEventId: sseEventId(view('deposited')),
      fetchView: async () => view('deposited'),
      follow: () => () => undefined,
    });
    await new Promise((r) => setImmediate(r));
    expect(first.events()).toEqual([]);
    first.res.emit('close');
    await same;

    const second = fakeResponse();
    let reads = 0;
    let push: (u: OrderUpdate) => void = () => undefined;
    const racing = streamOrderEvents(second.raw, {
      ...base,
      follow: (l) => ((push = l), () => undefined),
      fetchView: async () => {
        reads++;
        if (reads === 1) push(update(4, view('fulfilled'))); // arrives while the first view is read
        return reads === 1 ? view('deposited') : view('fulfilled');
      },
    });
    await new Promise((r) => setImmediate(r));
    push(update(3, view('deposited'))); // older than the buffered one: dropped
    expect(second.events().map((v) => v.status)).toEqual(['fulfilled']);
    second.res.emit('close');
    await racing;
  });

  it("sends expired once when a quoted order's retention ends (not at its expiry), heartbeats while idle, and ends after the longest duration", async () => {
    jest.useFakeTimers({ now: new Date('2026-11-23T10:00:00Z') });
    try {
      const { res, events, raw } = fakeResponse();
      // expires_at is 10:00:03: past it the order is still quoted, and nothing is read again then.
      let current = view('quoted', '2026-11-23T10:00:10Z');
      let reads = 0;
      let push: (u: OrderUpdate) => void = () => undefined;
      let unfollowed = false;
      const over = streamOrderEvents(raw, {
        ...base,
        maxDurationMs: 30_000,
        fetchView: async () => (reads++, current),
        follow: (l) => ((push = l), () => void (unfollowed = true)),
      });
      await jest.advanceTimersByTimeAsync(0);
      await jest.advanceTimersByTimeAsync(8000); // 10:00:08, past the expiry
      expect([reads, events().map((v) => v.status)]).toEqual([1, ['quoted']]);
      current = view('expired', '2026-11-23T10:00:10Z');
      await jest.advanceTimersByTimeAsync(4000); // 10:00:12, past the end of retention
      expect([reads, events().map((v) => v.status)]).toEqual([2, ['quoted', 'expired']]);
      // The same view pushed after that (by the quote-engine's expiry sweep) is not sent again.
      push(update(1, view('expired', '2026-11-23T10:00:10Z')));
      expect(events().map((v) => v.status)).toEqual(['quoted', 'expired']);
      expect(res.chunks.filter((c) => c.startsWith(': heartbeat')).length).toBeGreaterThanOrEqual(6);
      await jest.advanceTimersByTimeAsync(30_000);
      await over;
      expect(res.writableEnded).toBe(true);
      expect(unfollowed).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('reads the view again when a read fails (the instance that took it died), and gives up after readAttempts', async () => {
    // Updates arrived while the first view was read; the second read goes to an instance that dies.
    const dying = fakeResponse();
    let reads = 0;
    let push: (u: OrderUpdate) => void = () => undefined;
    const over = streamOrderEvents(dying.raw, {
      ...base,
      follow: (l) => ((push = l), () => undefined),
      fetchView: async () => {
        reads++;
        if (reads === 1) {
          push(update(2, view('deposited')));
          return view('quoted');
        }
        if (reads === 2) throw new Error('quote-engine did not answer within 5000 ms');
        return view('deposited');
      },
    });
    await new Promise((r) => setImmediate(r));
    expect({
      reads,
      statuses: dying.events().map((v) => v.status),
      errors: dying.res.chunks.filter((c) => c.startsWith('event: error')),
    }).toEqual({ reads: 3, statuses: ['deposited'], errors: [] });
    expect(dying.res.writableEnded).toBe(false);
    dying.res.emit('close');
    await over;

    const down = fakeResponse();
    let tries = 0;
    await streamOrderEvents(down.raw, {
      ...base,
      readAttempts: 2,
      fetchView: async () => (tries++, Promise.reject(new Error('late'))),
      follow: () => () => undefined,
    });
    expect(tries).toBe(2);
    expect(down.res.chunks.at(-1)).toMatch(/^event: error\n/);
  });

  it('ends with an error event when the first view cannot be read, and at once on shutdown', async () => {
    const failing = fakeResponse();
    await streamOrderEvents(failing.raw, {
      ...base,
      fetchView: async () => Promise.reject(new Error('late')),
      follow: () => () => undefined,
    });
    expect(failing.res.chunks.at(-1)).toMatch(/^event: error\n/);
    expect(failing.res.writableEnded).toBe(true);

    const stopping = fakeResponse();
    const shutdown = new AbortController();
    const over = streamOrderEvents(stopping.raw, {
      ...base,
      signal: shutdown.signal,
      fetchView: async () => view('quoted'),
      follow: () => () => undefined,
    });
    await new Promise((r) => setImmediate(r));
    shutdown.abort();
    await over;
    expect(stopping.res.writableEnded).toBe(true);
  });
});
