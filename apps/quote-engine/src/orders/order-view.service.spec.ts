import { Code, OrderStatusSchema, RpcError, type GaslessOrderView, type Quote } from '@xchain/contracts';
import { orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { OUTAGE_SETTLE_MS } from '@xchain/messaging';
import {
  OrderViewService,
  decodeOrderCursor,
  encodeOrderCursor,
  type OrderRecord,
  type OrderViewDeps,
  type RecordedFailure,
  type RecordedOrderEvent,
  failureReasonOf,
  type RecordedSettlement,
  type StoredOrder,
} from './order-view.service';

const HASH = `0x${'ab'.repeat(32)}`;
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const USDC_SOL = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const VMS = new Map<string, 'evm' | 'svm'>([
  ['base', 'evm'],
  ['solana', 'svm'],
]);
const CREATED = new Date('2026-11-22T10:00:00.123Z');
const EXPIRES = new Date('2026-11-22T10:30:00Z');
const RETAINED = new Date('2026-11-29T10:00:00Z');
const GRACE_MS = 86_400_000;

function stored(over: Partial<StoredOrder> = {}): StoredOrder {
  const content = {
    quote_hash: HASH,
    amount_in: '1000000',
    amount_out: '990000',
    min_amount_out: '985000',
    expires_at: '2026-11-22T10:30:00Z',
  };
  return {
    quoteHash: HASH,
    srcChain: 'base',
    dstChain: 'solana',
    gasless: false,
    // lowercase in the order: the view must give it back EIP-55, as the request named it
    order: orderToWire(
      sampleOrder({ srcToken: toBytes32('evm', USDC_BASE.toLowerCase()), dstToken: toBytes32('svm', USDC_SOL), amountIn: 1_000_000n }),
      [],
    ),
    response: { cross_chain: content } as unknown as Quote,
    createdAt: CREATED,
    expiresAt: EXPIRES,
    retainedUntil: RETAINED,
    ...over,
  };
}

const event = (type: RecordedOrderEvent['type'], chain: string, block: bigint | null, at: string): RecordedOrderEvent => ({
  type,
  chain,
  txHash: `0x${type}`,
  blockNumber: block,
  occurredAt: new Date(at),
});

/** An OrderViewService over hand-made deps: the stored order, its events, the gasless view, the time, and the mocks that read them. */
function orderViewWith(
  opts: {
    order?: StoredOrder | undefined;
    events?: RecordedOrderEvent[];
    settlement?: RecordedSettlement;
    failure?: RecordedFailure;
    now?: string;
    gasless?: GaslessOrderViewOrFailure;
    page?: OrderRecord[];
  } = {},
) {
  const warn = jest.fn();
  const info = jest.fn();
  const gaslessGet = jest.fn(async (): Promise<GaslessOrderView | undefined> => {
    const g = opts.gasless;
    if (g instanceof Error) throw g;
    return g;
  });
  const find = jest.fn(async (hash: string) =>
    opts.order && hash === opts.order.quoteHash
      ? {
          order: opts.order,
          events: opts.events ?? [],
          ...(opts.settlement ? { settlement: opts.settlement } : {}),
          ...(opts.failure ? { failure: opts.failure } : {}),
        }
      : undefined,
  );
  const partnerPage = jest.fn(async (q: { limit: number }) => (opts.page ?? []).slice(0, q.limit));
  const deps: OrderViewDeps = {
    records: { find, partnerPage },
    gasless: { get: gaslessGet },
    now: () => new Date(opts.now ?? '2026-11-22T10:05:00Z'),
    graceMs: GRACE_MS,
    vmOf: (chain) => VMS.get(chain),
    assertChain: (chain, field) => {
      if (!VMS.has(chain)) throw RpcError.invalidArgument([{ field, description: `unknown chain ${chain}` }], 'INVALID_CHAIN');
    },
    log: { warn, info },
  };
  return { service: new OrderViewService(deps), gaslessGet, find, partnerPage, warn, info };
}
type GaslessOrderViewOrFailure = GaslessOrderView | undefined | Error;

describe('OrderViewService', () => {
  it('shows a fresh quote as quoted, with its terms and tokens as the request named them', async () => {
    const { service, gaslessGet } = orderViewWith({ order: stored() });
    const view = await service.get(HASH.toUpperCase().replace('0X', '0x'));
    expect(OrderStatusSchema.parse(view)).toEqual(view);
    expect(view).toEqual({
      quote_hash: HASH,
      status: 'quoted',
      terminal: false,
      src_chain: 'base',
      dst_chain: 'solana',
      src_token: USDC_BASE,
      dst_token: USDC_SOL,
      amount_in: '1000000',
      amount_out: '990000',
      min_amount_out: '985000',
      quoted_at: '2026-11-22T10:00:00.123Z',
      expires_at: '2026-11-22T10:30:00Z',
      retained_until: '2026-11-29T10:00:00Z',
    });
    expect(gaslessGet).not.toHaveBeenCalled(); // not a gasless quote
  });

  it('reads the terms of a same-chain swap too', async () => {
    const order = stored({
      dstChain: 'base',
      response: { same_chain_swap: { amount_in: '5', amount_out: '4', min_amount_out: '3' } } as unknown as Quote,
    });
    order.order.dst_token = toBytes32('evm', '0x0000000000000000000000000000000000000000');
    const view = await orderViewWith({ order }).service.get(HASH);
    expect(view).toMatchObject({
      amount_in: '5',
      amount_out: '4',
      min_amount_out: '3',
      dst_token: '0x0000000000000000000000000000000000000000',
    });
  });

  // D16: expires_at only dates the price; a deposit is honoured, so the quote stays open, until retained_until.
  it('stays quoted past the expiry up to the end of retention, and is expired (terminal) just after it', async () => {
    const at = async (now: string) => {
      const view = await orderViewWith({ order: stored(), now }).service.get(HASH);
      return [view.status, view.terminal];
    };
    expect(await at('2026-11-22T10:30:01Z')).toEqual(['quoted', false]);
    expect(await at('2026-11-29T10:00:00Z')).toEqual(['quoted', false]);
    expect(await at('2026-11-29T10:00:00.001Z')).toEqual(['expired', true]);
  });

  it('never shows a deposited order as expired, neither past the expiry nor past retention', async () => {
    const events = [event('deposited', 'base', 12345n, '2026-11-22T10:29:00Z')];
    for (const now of ['2026-11-22T11:00:00Z', '2026-11-29T10:00:01Z']) {
      const view = await orderViewWith({ order: stored(), events, now }).service.get(HASH);
      expect([view.status, view.terminal]).toEqual(['deposited', false]);
    }
  });

  it('shows deposited with the deposit step, even after the expiry', async () => {
    const events = [event('deposited', 'base', 12345n, '2026-11-22T10:29:00Z')];
    const view = await orderViewWith({ order: stored(), events, now: '2026-11-22T11:00:00Z' }).service.get(HASH);
    expect(view.status).toBe('deposited');
    expect(view.deposit).toEqual({ chain: 'base', tx_hash: '0xdeposited', block_number: '12345', at: '2026-11-22T10:29:00Z' });
    expect(view.fulfillment).toBeUndefined();
    expect(view.refund).toBeUndefined();
  });

  it('shows fulfilled with both steps; an event without a block number shows block 0', async () => {
    const events = [event('fulfilled', 'solana', null, '2026-11-22T10:07:00Z'), event('deposited', 'base', 7n, '2026-11-22T10:06:00Z')];
    const view = await orderViewWith({ order: stored(), events }).service.get(HASH);
    expect(OrderStatusSchema.parse(view)).toEqual(view);
    expect([view.status, view.terminal]).toEqual(['fulfilled', true]);
    expect(view.deposit?.block_number).toBe('7');
    expect(view.fulfillment).toEqual({ chain: 'solana', tx_hash: '0xfulfilled', block_number: '0', at: '2026-11-22T10:07:00Z' });
  });

  it('shows refunded over everything else', async () => {
    const events = [
      event('deposited', 'base', 7n, '2026-11-22T10:06:00Z'),
      event('refunded', 'base', 90n, '2026-11-22T12:00:00Z'),
      event('fulfilled', 'solana', 3n, '2026-11-22T10:07:00Z'),
    ];
    const view = await orderViewWith({ order: stored(), events }).service.get(HASH);
    expect([view.status, view.terminal]).toEqual(['refunded', true]);
    // No refund the system decided: the operator's hand.
    expect(view.refund).toEqual({
      chain: 'base',
      tx_hash: '0xrefunded',
      block_number: '90',
      at: '2026-11-22T12:00:00Z',
      token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      reason: 'OPERATOR',
    });
    expect(view.settlement).toBeUndefined();
  });

  it('says what settlement decided and, once refunded, what came back and why; a fill shows the amount delivered', async () => {
    const deposited = event('deposited', 'base', 7n, '2026-11-22T10:06:00Z');
    const pending = await orderViewWith({
      order: stored(),
      events: [deposited],
      settlement: { decision: 'refund', reason: 'INSUFFICIENT_INVENTORY' },
    }).service.get(HASH);
    expect([pending.status, pending.terminal, pending.settlement]).toEqual([
      'deposited',
      false,
      { decision: 'refund', reason: 'INSUFFICIENT_INVENTORY' },
    ]);
    const refunded = { ...event('refunded', 'base', 90n, '2026-11-22T12:00:00Z'), amount: '1000000' };
    const done = await orderViewWith({
      order: stored(),
      events: [deposited, refunded],
      settlement: { decision: 'refund', reason: 'INSUFFICIENT_INVENTORY' },
    }).service.get(HASH);
    expect(OrderStatusSchema.parse(done)).toEqual(done);
    expect(done.refund).toMatchObject({
      amount: '1000000',
      reason: 'INSUFFICIENT_INVENTORY',
      token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    });
    const fill = { ...event('fulfilled', 'solana', 3n, '2026-11-22T10:07:00Z'), amount: '998000' };
    const filled = await orderViewWith({ order: stored(), events: [deposited, fill], settlement: { decision: 'fill' } }).service.get(HASH);
    expect(filled.fulfillment).toMatchObject({ chain: 'solana', amount: '998000' });
    expect(filled.settlement).toEqual({ decision: 'fill' });
  });

  it('answers QUOTE_NOT_FOUND for an unknown quote and for one past retention and the grace after it', async () => {
    const unknown = orderViewWith({ order: undefined }).service.get(HASH);
    await expect(unknown).rejects.toMatchObject({ status: { code: Code.NOT_FOUND } });
    await expect(unknown).rejects.toThrow(`no retained quote ${HASH}`);
    // During the grace the terminal view is still there, so a client polling for it reads it.
    const lastMoment = new Date(RETAINED.getTime() + GRACE_MS).toISOString();
    expect((await orderViewWith({ order: stored(), now: lastMoment }).service.get(HASH)).status).toBe('expired');
    const gone = orderViewWith({ order: stored(), now: new Date(RETAINED.getTime() + GRACE_MS + 1).toISOString() }).service.get(HASH);
    await expect(gone).rejects.toBeInstanceOf(RpcError);
    await expect(gone).rejects.toMatchObject({
      status: { code: Code.NOT_FOUND, details: [expect.objectContaining({ reason: 'QUOTE_NOT_FOUND' })] },
    });
  });

  describe('a gasless order', () => {
    const relayed: GaslessOrderView = { quote_hash: HASH, status: 'confirmed', tx_hash: '0xr2', tx_hashes: ['0xr1', '0xr2'] };

    it("carries the relayer's view next to the chain steps", async () => {
      const events = [event('deposited', 'base', 7n, '2026-11-22T10:06:00Z')];
      const { service, gaslessGet } = orderViewWith({ order: stored({ gasless: true }), events, gasless: relayed });
      const view = await service.get(HASH);
      expect(gaslessGet).toHaveBeenCalledWith(HASH);
      expect(OrderStatusSchema.parse(view)).toEqual(view);
      expect(view).toMatchObject({ status: 'deposited', gasless: relayed });
    });

    it('is failed (terminal) with its reason once a relay failure is recorded, also past retention, and never over a deposit', async () => {
      const failedRelay: GaslessOrderView = {
        quote_hash: HASH,
        status: 'failed',
        tx_hashes: [],
        error: 'SIMULATION_REVERTED: Error(TRANSFER_FROM_FAILED)',
      };
      const failure = { reason: 'SIMULATION_REVERTED', message: failedRelay.error!, at: new Date('2026-11-22T10:04:00Z') };
      for (const now of ['2026-11-22T10:05:00Z', '2026-11-29T10:00:01Z']) {
        const view = await orderViewWith({ order: stored({ gasless: true }), gasless: failedRelay, failure, now }).service.get(HASH);
        expect(OrderStatusSchema.parse(view)).toEqual(view);
        expect(view).toMatchObject({
          status: 'failed',
          terminal: true,
          failure: {
            reason: 'SIMULATION_REVERTED',
            message: 'SIMULATION_REVERTED: Error(TRANSFER_FROM_FAILED)',
            at: '2026-11-22T10:04:00Z',
          },
          gasless: failedRelay,
        });
      }
      // Until the relayer's event is recorded the order is not failed, whatever the relayer says now.
      const unrecorded = await orderViewWith({ order: stored({ gasless: true }), gasless: failedRelay }).service.get(HASH);
      expect(unrecorded).toMatchObject({ status: 'quoted', terminal: false });
      // The chains' word comes first.
      const events = [event('deposited', 'base', 7n, '2026-11-22T10:06:00Z')];
      const deposited = await orderViewWith({ order: stored({ gasless: true }), events, failure }).service.get(HASH);
      expect(deposited).toMatchObject({ status: 'deposited', terminal: false });
      expect('failure' in deposited).toBe(false);
    });

    it('reads the reason code a relayer error starts with', () => {
      expect(failureReasonOf('TX_REVERTED: 0xab reverted in block 7')).toBe('TX_REVERTED');
      expect(failureReasonOf('DEADLINE_PASSED')).toBe('DEADLINE_PASSED');
      expect(failureReasonOf('something else')).toBe('RELAY_FAILED');
      expect(failureReasonOf(undefined)).toBe('RELAY_FAILED');
    });

    it('omits gasless when it was never submitted', async () => {
      const { service, warn } = orderViewWith({ order: stored({ gasless: true }), gasless: undefined });
      const view = await service.get(HASH);
      expect(view.status).toBe('quoted');
      expect('gasless' in view).toBe(false);
      expect(warn).not.toHaveBeenCalled();
    });

    it('is still served when the relayer is away, logging the outage once, and its end once', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
      const t = orderViewWith({ order: stored({ gasless: true }), gasless: RpcError.unavailable('no responders', 'SERVICE_UNAVAILABLE') });
      for (let i = 0; i < 3; i++) {
        const view = await t.service.get(HASH);
        expect(view.status).toBe('quoted');
        expect('gasless' in view).toBe(false);
      }
      expect(t.warn).toHaveBeenCalledTimes(1);
      t.gaslessGet.mockResolvedValue(relayed);
      expect((await t.service.get(HASH)).gasless).toEqual(relayed);
      jest.advanceTimersByTime(OUTAGE_SETTLE_MS); // back once it has answered for the settle time
      expect(t.info).toHaveBeenCalledTimes(1);
      t.gaslessGet.mockRejectedValue(RpcError.deadlineExceeded('slow', 'UPSTREAM_TIMEOUT'));
      await t.service.get(HASH);
      expect(t.warn).toHaveBeenCalledTimes(2); // a new outage is logged again
      jest.useRealTimers();
    });
  });

  describe("a partner's orders", () => {
    const hash = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;
    const rows = (n: number): OrderRecord[] =>
      Array.from({ length: n }, (_, i) => ({
        order: stored({ quoteHash: hash(n - i), createdAt: new Date(CREATED.getTime() - i * 1000) }),
        events: [],
      }));

    it('pages newest first: a full page ends with a cursor after its last order, the last page with none', async () => {
      const { service, partnerPage } = orderViewWith({ page: rows(3) });
      const first = await service.listForPartner('ptn_1', { page_size: 2, chain: 'base' });
      expect(first.orders.map((o) => [o.quote_hash, o.status])).toEqual([
        [hash(3), 'quoted'],
        [hash(2), 'quoted'],
      ]);
      expect(decodeOrderCursor(first.next_cursor)).toEqual({ createdAt: new Date(CREATED.getTime() - 1000), quoteHash: hash(2) });
      // One more than the page is read to know whether another follows; retention plus the grace bounds it.
      expect(partnerPage).toHaveBeenLastCalledWith({
        partnerId: 'ptn_1',
        chain: 'base',
        retainedAfter: new Date(Date.parse('2026-11-22T10:05:00Z') - GRACE_MS),
        limit: 3,
      });

      const last = await service.listForPartner('ptn_1', { page_size: 3, cursor: first.next_cursor });
      expect(partnerPage).toHaveBeenLastCalledWith(
        expect.objectContaining({ after: { createdAt: new Date(CREATED.getTime() - 1000), quoteHash: hash(2) }, limit: 4 }),
      );
      expect(last.next_cursor).toBe('');
    });

    it('refuses a chain filter naming no registry chain (INVALID_CHAIN) on the list and the export, before reading any order', async () => {
      const { service, partnerPage } = orderViewWith({ page: rows(1) });
      for (const call of [
        () => service.listForPartner('ptn_1', { chain: 'bogus' }),
        () => service.exportForPartner('ptn_1', { chain: 'bogus' }),
        () => service.listForAddress(`0x${'11'.repeat(20)}`, { chain: 'bogus' }),
      ]) {
        const err = await call().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RpcError);
        expect((err as RpcError).status).toMatchObject({
          code: Code.INVALID_ARGUMENT,
          details: expect.arrayContaining([expect.objectContaining({ reason: 'INVALID_CHAIN' })]),
        });
      }
      expect(partnerPage).not.toHaveBeenCalled();
    });

    it('serves 50 by default and at most 200, and refuses a cursor it did not make', async () => {
      const { service, partnerPage } = orderViewWith({ page: [] });
      await service.listForPartner('ptn_1', {});
      expect(partnerPage).toHaveBeenLastCalledWith(expect.objectContaining({ limit: 51 }));
      await service.listForPartner('ptn_1', { page_size: 5000 });
      expect(partnerPage).toHaveBeenLastCalledWith(expect.objectContaining({ limit: 201 }));
      await expect(service.listForPartner('ptn_1', { page_size: 0 })).rejects.toMatchObject({ status: { code: Code.INVALID_ARGUMENT } });
      for (const cursor of [
        'x',
        encodeOrderCursor({ createdAt: CREATED, quoteHash: 'not-a-hash' }),
        Buffer.from('["e1","5"]').toString('base64url'),
      ]) {
        const err = await service.listForPartner('ptn_1', { cursor }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RpcError);
        expect((err as RpcError).status.code).toBe(Code.INVALID_ARGUMENT);
      }
    });
  });
});
