import type { OrderUpdate, Quote } from '@xchain/contracts';
import { orderToWire, sampleOrder } from '@xchain/order-codec';
import { FakeClock } from '@xchain/service-kit';
import { ExpirySweep, type ExpiredQuotes, type SweepCursor } from './expiry-sweep';
import { OrderUpdatePusher, type PushLog } from './order-updates';
import { OrderViewService, type RecordedOrderEvent } from './order-view.service';

const HOUR = 3_600_000;
const GRACE_MS = 24 * HOUR;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const silent = { info: () => undefined, warn: () => undefined };

interface Row {
  quoteHash: string;
  retainedUntil: Date;
  deposited?: boolean;
}

/**
 * The quote-engine as the sweep meets it, in memory: stored quotes, the push log, the order view
 * on a clock the test moves, and a stream that keeps one message per event id (as JetStream's
 * message-id deduplication does).
 */
function world(rows: Row[], start = new Date('2026-12-01T12:00:00Z')) {
  const clock = new FakeClock(start.getTime());
  const table = new Map(rows.map((r) => [r.quoteHash, r]));
  const pushes = new Map<string, { version: number; digest: string; status?: string; pending?: OrderUpdate }>();
  const stream = new Map<string, OrderUpdate>();
  let failNext = 0;
  const pushLog: PushLog = {
    last: async (h) => pushes.get(h),
    claim: async (h, update, digest) => {
      if ((pushes.get(h)?.version ?? 0) !== update.version - 1) return false;
      pushes.set(h, { version: update.version, digest, status: update.order.status, pending: update });
      return true;
    },
    published: async (h, version) => {
      const row = pushes.get(h);
      if (row?.version === version) delete row.pending;
    },
    partnerOf: async () => undefined,
  };
  const order = orderToWire(sampleOrder({}), []);
  const views = new OrderViewService({
    records: {
      partnerPage: async () => [],
      find: async (h) => {
        const r = table.get(h);
        if (!r) return undefined;
        const events: RecordedOrderEvent[] = r.deposited
          ? [{ type: 'deposited', chain: 'base', txHash: '0xd', blockNumber: 1n, occurredAt: start }]
          : [];
        const response = { cross_chain: { amount_in: '1', amount_out: '1', min_amount_out: '1' } } as unknown as Quote;
        return {
          order: {
            quoteHash: h,
            srcChain: 'base',
            dstChain: 'base',
            gasless: false,
            order,
            response,
            createdAt: start,
            expiresAt: start,
            retainedUntil: r.retainedUntil,
          },
          events,
        };
      },
    },
    gasless: { get: async () => undefined },
    now: () => clock.now(),
    graceMs: GRACE_MS,
    vmOf: () => 'evm',
    assertChain: () => undefined,
    log: silent,
  });
  /** The selection `sqlExpiredQuotes` makes, over the rows above. */
  const quotes: ExpiredQuotes & { pages: SweepCursor[] } = {
    pages: [],
    async page(after, until, limit) {
      quotes.pages.push(after);
      const key = (r: { retainedUntil: Date; quoteHash: string }) => `${r.retainedUntil.toISOString()} ${r.quoteHash}`;
      return [...table.values()]
        .filter(
          (r) =>
            key(r) > key(after) &&
            r.retainedUntil < until &&
            !r.deposited &&
            !(pushes.get(r.quoteHash)?.status === 'expired' && !pushes.get(r.quoteHash)?.pending),
        )
        .sort((a, b) => (key(a) < key(b) ? -1 : 1))
        .slice(0, limit)
        .map((r) => ({ quoteHash: r.quoteHash, retainedUntil: r.retainedUntil }));
    },
  };
  /** One quote-engine replica: its own pusher (its own in-flight map) and sweep. */
  const replica = (opts: { sinkDelayMs?: number } = {}) => {
    const pusher = new OrderUpdatePusher(
      views,
      pushLog,
      async (u) => {
        await new Promise((r) => setTimeout(r, opts.sinkDelayMs ?? 0));
        if (failNext > 0 && failNext--) throw new Error('stream unavailable');
        if (!stream.has(u.event_id)) stream.set(u.event_id, u);
      },
      clock,
    );
    return new ExpirySweep(quotes, pusher, { intervalMs: 600_000, batch: 2, graceMs: GRACE_MS }, silent, clock);
  };
  return {
    replica,
    quotes,
    stream,
    expiredPushed: () =>
      [...stream.values()]
        .filter((u) => u.order.status === 'expired')
        .map((u) => u.quote_hash)
        .sort(),
    at: (iso: string) => clock.set(new Date(iso)),
    failNextPushes: (n: number) => (failNext = n),
  };
}

describe('ExpirySweep (D16: expired once retention ends, pushed once)', () => {
  it('pushes expired for each quote whose retention ended undeposited, once, and for none still retained, deposited or past the grace', async () => {
    const w = world([
      { quoteHash: hash(1), retainedUntil: new Date('2026-12-01T11:50:00Z') },
      { quoteHash: hash(2), retainedUntil: new Date('2026-12-01T11:59:59Z') },
      { quoteHash: hash(3), retainedUntil: new Date('2026-12-01T11:30:00Z') },
      { quoteHash: hash(4), retainedUntil: new Date('2026-12-01T13:00:00Z') }, // still retained
      { quoteHash: hash(5), retainedUntil: new Date('2026-12-01T11:00:00Z'), deposited: true },
      { quoteHash: hash(6), retainedUntil: new Date('2026-11-30T11:00:00Z') }, // past the grace: its view is gone
    ]);
    const sweep = w.replica();

    expect(await sweep.runOnce()).toEqual({ swept: 3, failed: 0 });
    expect(w.expiredPushed()).toEqual([hash(1), hash(2), hash(3)]);
    const pushed = [...w.stream.values()];
    expect(pushed.every((u) => u.version === 1 && u.order.terminal && u.event_id === `${u.quote_hash}:1`)).toBe(true);

    // Nothing new: nothing pushed again, by this run or by one a minute later.
    expect(await sweep.runOnce()).toEqual({ swept: 0, failed: 0 });
    w.at('2026-12-01T12:01:00Z');
    expect(await sweep.runOnce()).toEqual({ swept: 0, failed: 0 });
    expect(w.stream.size).toBe(3);

    // The fourth one's retention ends: pushed on the next run.
    w.at('2026-12-01T13:00:00.001Z');
    expect(await sweep.runOnce()).toEqual({ swept: 1, failed: 0 });
    expect(w.expiredPushed()).toEqual([hash(1), hash(2), hash(3), hash(4)]);
  });

  it('reads each run from shortly before where the last one ended, not the whole grace again', async () => {
    const w = world([{ quoteHash: hash(1), retainedUntil: new Date('2026-12-01T11:00:00Z') }]);
    const sweep = w.replica();
    await sweep.runOnce();
    w.at('2026-12-01T12:05:00Z');
    await sweep.runOnce();
    expect(w.quotes.pages.map((p) => p.retainedUntil.toISOString())).toEqual(['2026-11-30T12:00:00.000Z', '2026-12-01T11:59:00.000Z']);
  });

  it('retries a quote whose push failed on the next run, even once the runs moved on past it', async () => {
    const w = world([
      { quoteHash: hash(1), retainedUntil: new Date('2026-12-01T10:00:00Z') },
      { quoteHash: hash(2), retainedUntil: new Date('2026-12-01T11:00:00Z') },
    ]);
    const sweep = w.replica();
    w.failNextPushes(1);
    expect(await sweep.runOnce()).toEqual({ swept: 1, failed: 1 });
    expect(w.expiredPushed()).toEqual([hash(2)]);
    w.at('2026-12-01T14:00:00Z');
    expect(await sweep.runOnce()).toEqual({ swept: 1, failed: 0 });
    expect(w.expiredPushed()).toEqual([hash(1), hash(2)]);
  });

  it('pushes each expired view once when two replicas sweep at the same time', async () => {
    const rows = Array.from({ length: 5 }, (_, i) => ({
      quoteHash: hash(10 + i),
      retainedUntil: new Date(Date.parse('2026-12-01T11:00:00Z') + i * 1000),
    }));
    const w = world(rows);
    const [a, b] = [w.replica({ sinkDelayMs: 5 }), w.replica({ sinkDelayMs: 7 })];
    // A replica that loses a race fails that quote (it is retried, and then finds it pushed).
    const results = [];
    for (let run = 0; run < 3; run++) results.push(...(await Promise.all([a.runOnce(), b.runOnce()])));
    expect(results.reduce((n, r) => n + r.failed, 0)).toBeGreaterThan(0); // the race did happen
    expect(results.at(-1)).toEqual({ swept: 0, failed: 0 });
    expect(w.expiredPushed()).toEqual(rows.map((r) => r.quoteHash));
    expect(w.stream.size).toBe(rows.length);
    expect([...w.stream.values()].every((u) => u.version === 1)).toBe(true);
  });
});
