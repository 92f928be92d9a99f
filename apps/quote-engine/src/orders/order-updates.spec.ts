import { OrderUpdateSchema, RpcError, type OrderStatus, type OrderUpdate } from '@xchain/contracts';
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

function setup(partner?: string) {
  let current: OrderStatus | Error = view('quoted');
  const rows = new Map<string, { version: number; digest: string; status?: string }>();
  const pushes: PushLog = {
    last: async (h) => rows.get(h),
    advance: async (h, version, digest, status) => {
      if ((rows.get(h)?.version ?? 0) !== version - 1) return false;
      rows.set(h, { version, digest, status });
      return true;
    },
    partnerOf: async () => partner,
  };
  const sent: OrderUpdate[] = [];
  let sinkDelayMs = 0;
  const pusher = new OrderUpdatePusher(
    {
      get: async () => {
        if (current instanceof Error) throw current;
        return current;
      },
    },
    pushes,
    async (u) => {
      await new Promise((r) => setTimeout(r, sinkDelayMs));
      sent.push(u);
    },
    () => new Date('2026-11-23T10:05:00Z'),
  );
  return { pusher, sent, rows, set: (v: OrderStatus | Error) => (current = v), slowSink: (ms: number) => (sinkDelayMs = ms) };
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

  it('fails when another replica pushed the same version meanwhile, so the event is retried against the new state', async () => {
    const { pusher, sent, rows, slowSink } = setup();
    slowSink(30);
    const racing = pusher.changed(HASH);
    await new Promise((r) => setTimeout(r, 10)); // while our version 1 is being published,
    rows.set(HASH, { version: 1, digest: 'other' }); // the other replica records its version 1
    await expect(racing).rejects.toThrow('pushed concurrently');
    await pusher.changed(HASH);
    expect(sent.map((u) => u.version)).toEqual([1, 2]);
  });
});
