import { OrderUpdateSchema, RpcError, type OrderStatus, type OrderUpdate } from '@xchain/contracts';
import { FakeClock } from '@xchain/service-kit';
import { OrderUpdatePusher, type PushLog } from './order-updates';

const HASH = `0x${'ab'.repeat(32)}`;
const view = (status: OrderStatus['status']): OrderStatus => ({
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
  expires_at: '2026-11-23T10:30:00Z',
  retained_until: '2026-11-30T10:00:00Z',
});

type Row = { version: number; digest: string; status?: string; pending?: OrderUpdate };

/** A pusher over a push log kept in `rows` (several pushers may share one, as replicas share the table). */
function setup(partner?: string, rows = new Map<string, Row>(), sent: OrderUpdate[] = []) {
  let current: OrderStatus | Error = view('quoted');
  const pushes: PushLog = {
    last: async (h) => rows.get(h),
    claim: async (h, update, digest) => {
      await new Promise((r) => setTimeout(r, claimDelayMs));
      if ((rows.get(h)?.version ?? 0) !== update.version - 1) return false;
      rows.set(h, { version: update.version, digest, status: update.order.status, pending: update });
      return true;
    },
    published: async (h, version) => {
      const row = rows.get(h);
      if (row?.version === version) delete row.pending;
    },
    partnerOf: async () => partner,
  };
  let sinkDelayMs = 0;
  let viewDelayMs = 0;
  let claimDelayMs = 0;
  let sinkFailures = 0;
  const pusher = new OrderUpdatePusher(
    {
      get: async () => {
        const seen = current;
        await new Promise((r) => setTimeout(r, viewDelayMs));
        if (seen instanceof Error) throw seen;
        return seen;
      },
    },
    pushes,
    async (u) => {
      await new Promise((r) => setTimeout(r, sinkDelayMs));
      if (sinkFailures > 0) {
        sinkFailures--;
        throw new Error('the stream did not answer');
      }
      // The stream keeps one message per event id (its duplicate window), as JetStream does with msgID.
      if (!sent.some((s) => s.event_id === u.event_id)) sent.push(u);
    },
    new FakeClock(Date.parse('2026-11-23T10:05:00Z')),
  );
  return {
    pusher,
    sent,
    rows,
    set: (v: OrderStatus | Error) => (current = v),
    slowSink: (ms: number) => (sinkDelayMs = ms),
    slowView: (ms: number) => (viewDelayMs = ms),
    failSink: (n: number) => (sinkFailures = n),
    slowClaim: (ms: number) => (claimDelayMs = ms),
  };
}

describe('OrderUpdatePusher (D13)', () => {
  it('pushes each change of the view once, with the next version and the partner of the quote, and records its status', async () => {
    const { pusher, sent, set, rows } = setup('prt_1');
    await pusher.changed(HASH);
    set(view('deposited'));
    await pusher.changed(HASH);
    await pusher.changed(HASH); // nothing changed: nothing pushed
    set(view('fulfilled'));
    await pusher.changed(HASH.toUpperCase().replace('0X', '0x'));
    expect(sent.map((u) => [u.event_id, u.version, u.order.status, u.partner_id])).toEqual([
      [`${HASH}:1`, 1, 'quoted', 'prt_1'],
      [`${HASH}:2`, 2, 'deposited', 'prt_1'],
      [`${HASH}:3`, 3, 'fulfilled', 'prt_1'],
    ]);
    for (const u of sent) expect(OrderUpdateSchema.parse(u)).toEqual(u);
    expect(rows.get(HASH)).toMatchObject({ version: 3, status: 'fulfilled' }); // what the expiry sweep reads
  });

  it('handles the changes of one order one at a time, so versions never interleave', async () => {
    const { pusher, sent, set, slowSink } = setup();
    slowSink(20);
    set(view('deposited'));
    const first = pusher.changed(HASH);
    set(view('fulfilled'));
    await Promise.all([first, pusher.changed(HASH), pusher.changed(HASH)]);
    expect(sent.map((u) => u.version)).toEqual([1, 2].slice(0, sent.length));
    expect(sent.at(-1)!.order.status).toBe('fulfilled');
    expect(sent[0]!.partner_id).toBeUndefined();
  });

  it('pushes nothing for a quote that is not retained, and fails (to be retried) when the view cannot be made', async () => {
    const { pusher, sent, set } = setup();
    set(RpcError.notFound('gone', 'QUOTE_NOT_FOUND'));
    await pusher.changed(HASH);
    set(RpcError.unavailable('relayer down', 'RELAYER_UNAVAILABLE'));
    await expect(pusher.changed(HASH)).rejects.toThrow('relayer down');
    expect(sent).toEqual([]);
  });

  it('fails when another replica claimed the same version meanwhile, so the event is retried against the new state', async () => {
    const { pusher, sent, rows, slowView } = setup();
    slowView(30);
    const racing = pusher.changed(HASH);
    await new Promise((r) => setTimeout(r, 10)); // while our view is being made,
    rows.set(HASH, { version: 1, digest: 'other' }); // the other replica claims (and publishes) its version 1
    await expect(racing).rejects.toThrow('claimed concurrently');
    slowView(0);
    await pusher.changed(HASH);
    expect(sent.map((u) => u.version)).toEqual([2]);
  });

  it('publishes a claimed update the stream did not take first, at the next push, whoever makes it', async () => {
    const a = setup();
    const b = setup(undefined, a.rows, a.sent);
    a.failSink(1);
    await expect(a.pusher.changed(HASH)).rejects.toThrow('the stream did not answer');
    expect(a.rows.get(HASH)).toMatchObject({ version: 1, pending: { version: 1 } });
    b.set(view('deposited'));
    await b.pusher.changed(HASH);
    expect(a.sent.map((u) => [u.version, u.order.status])).toEqual([
      [1, 'quoted'],
      [2, 'deposited'],
    ]);
    expect(a.rows.get(HASH)?.pending).toBeUndefined();
  });

  it('publishes the view of the replica that claimed the version, not of one that lost the claim', async () => {
    const a = setup();
    const b = setup(undefined, a.rows, a.sent);
    await a.pusher.changed(HASH); // version 1: quoted
    // Replica b made its view a moment before the order was fulfilled and is slow to the database;
    // replica a made the current one.
    b.set(view('deposited'));
    a.set(view('fulfilled'));
    b.slowClaim(30);
    const late = b.pusher.changed(HASH);
    await new Promise((r) => setTimeout(r, 10));
    await a.pusher.changed(HASH);
    await expect(late).rejects.toThrow('claimed concurrently');
    b.set(view('fulfilled')); // its redelivery sees the order as it is now
    await b.pusher.changed(HASH);
    expect(a.sent.map((u) => [u.version, u.order.status])).toEqual([
      [1, 'quoted'],
      [2, 'fulfilled'],
    ]);
  });
});
